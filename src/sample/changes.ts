// Daily changes to existing entities: the snapshot record re-derived, altered, and re-emitted under the same
// document number (newest wins), with the events that explain the change.
import { yearOf } from './dates.js';
import {
  mailingAddress,
  moreThanSix,
  officerList,
  principalAddress,
  registeredAgent,
  snapshotEntity,
} from './entity.js';
import { agentChangeCode, amendmentCode, annualReportCode, formerNote, makeEvent, nameChangeCode } from './events.js';
import type { AnnualReport, DatasetContext, Entity, EntityEvent } from './model.js';
import { businessName } from './names.js';
import { Rng, STREAM, Weighted } from './random.js';

type ChangeKind = 'annualReport' | 'address' | 'agent' | 'reinstatement' | 'name' | 'officers';

const CHANGE_KINDS = new Weighted<ChangeKind>([
  ['annualReport', 45],
  ['address', 16],
  ['agent', 14],
  ['reinstatement', 9],
  ['name', 7],
  ['officers', 9],
]);

export interface DailyChange {
  readonly entity: Entity;
  readonly events: readonly EntityEvent[];
  /** Sequence number of the first new event: the entity's history continues. */
  readonly firstSequence: number;
}

/** Per-day record numbering: a day's k-th change or event has its own random stream. */
const dayStreamIndex = (fileDay: number, k: number): number => fileDay * 2 ** 20 + k;

/** A snapshot entity with the wanted status, if a few draws find one. */
function pickEntity(rng: Rng, ctx: DatasetContext, status: 'A' | 'I'): Entity {
  let e = snapshotEntity(ctx, rng.int(ctx.entities));
  for (let tries = 1; e.status !== status && tries < 8; tries++) e = snapshotEntity(ctx, rng.int(ctx.entities));
  return e;
}

function withReport(e: Entity, filed: number): AnnualReport[] {
  const year = yearOf(filed);
  return [{ year, date: filed }, ...e.annualReports.filter((r) => r.year !== year)].slice(0, 3);
}

function alter(rng: Rng, e: Entity, kind: ChangeKind, filed: number): { entity: Entity; events: EntityEvent[] } {
  const base = { ...e, lastTransaction: filed };
  const event = (code: string, extra: Partial<EntityEvent> = {}): EntityEvent => makeEvent(rng, code, filed, extra);
  switch (kind) {
    case 'reinstatement':
      return {
        entity: { ...base, status: 'A', annualReports: withReport(e, filed) },
        events: [event('CORAPREIN'), event(annualReportCode(e.type))],
      };
    case 'address': {
      const principal = principalAddress(rng, e.type);
      const mailing = rng.chance(0.7) ? principal : mailingAddress(rng, principal, e.type);
      return {
        entity: { ...base, principal, mailing },
        events: [event(amendmentCode(e.type), { notes: ['CHANGE OF ADDRESS', '', ''] })],
      };
    }
    case 'agent':
      return {
        entity: { ...base, agent: registeredAgent(rng, e.type, e.principal, e.officers) },
        events: [event(agentChangeCode(e.type))],
      };
    case 'name':
      return {
        entity: { ...base, name: businessName(rng, e.type) },
        events: [event(nameChangeCode(e.type, rng), { notes: [formerNote(e.name), '', ''], nameChange: true })],
      };
    case 'officers': {
      const officers = officerList(rng, e.type, e.principal);
      return {
        entity: { ...base, officers, moreThanSixOfficers: moreThanSix(rng, officers) },
        events: [event(amendmentCode(e.type))],
      };
    }
    default:
      return { entity: { ...base, annualReports: withReport(e, filed) }, events: [event(annualReportCode(e.type))] };
  }
}

/** The k-th change in the daily file of `fileDay`. Only inactive entities are reinstated; only active ones report. */
export function dailyChange(ctx: DatasetContext, fileDay: number, k: number): DailyChange {
  const rng = new Rng(ctx.seed, STREAM.change, dayStreamIndex(fileDay, k));
  const wanted = CHANGE_KINDS.pick(rng);
  const e = pickEntity(rng, ctx, wanted === 'reinstatement' ? 'I' : 'A');
  const kind = e.status === 'I' ? 'reinstatement' : wanted === 'reinstatement' ? 'annualReport' : wanted;
  const filed = Math.max(ctx.snapshotDay + 1, fileDay - rng.between(0, 4));
  const { entity, events } = alter(rng, e, kind, filed);
  return { entity, events, firstSequence: dailySequence(ctx, e, fileDay, 1) };
}

/**
 * Event numbers after the snapshot: a block of 100 per day, so an entity changed on several days
 * never repeats a number (the registry's are increasing; gaps do not matter).
 */
function dailySequence(ctx: DatasetContext, e: Entity, fileDay: number, offset: number): number {
  return e.history.length + 100 * (fileDay - ctx.snapshotDay) + offset;
}

export interface OtherEvent {
  readonly entity: Entity;
  readonly event: EntityEvent;
  readonly sequence: number;
}

/** An event of an entity whose record the day's corporate file does not repeat (a correction, an amendment). */
export function otherEvent(ctx: DatasetContext, fileDay: number, k: number): OtherEvent {
  const rng = new Rng(ctx.seed, STREAM.otherEvent, dayStreamIndex(fileDay, k));
  const entity = pickEntity(rng, ctx, 'A');
  const code = rng.chance(0.6) ? amendmentCode(entity.type) : 'CORAPARTCR';
  const event = makeEvent(rng, code, Math.max(ctx.snapshotDay + 1, fileDay - rng.between(0, 4)));
  return { entity, event, sequence: dailySequence(ctx, entity, fileDay, 51) };
}
