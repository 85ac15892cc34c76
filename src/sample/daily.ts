// Daily files: a workday's new formations and changed records (`YYYYMMDDc.txt`) and its events
// (`YYYYMMDDce.txt`), LF-terminated. One day also carries a few planted malformed lines.
import { join } from 'node:path';
import { CORPORATE_RECORD_BYTES, EVENT_RECORD_BYTES, corporate as corporateLayout } from '../registry/layout.js';
import { dailyChange, otherEvent } from './changes.js';
import { yyyymmdd } from './dates.js';
import { encodeCorporate, EventEncoder } from './encode.js';
import { formationEntity } from './entity.js';
import { drainInto, FileWriter, LineSink } from './files.js';
import type { DatasetContext, Entity, EntityEvent } from './model.js';
import { Rng, STREAM } from './random.js';

const LF = 0x0a;
const BATCH = 256;
/** New formations per day as a share of the registry (about 2,500 a day for 12.6 million). */
const FORMATION_SHARE = 0.0002;
const MIN_FORMATIONS = 20;

export interface DayPlan {
  readonly fileDay: number;
  /** Index of the day's first formation, continuing the snapshot's sequence. */
  readonly firstIndex: number;
  readonly formations: number;
  readonly changes: number;
  readonly otherEvents: number;
  readonly plantMalformed: boolean;
}

export interface MalformedLine {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly reason: string;
}

export interface DayOutput {
  readonly corporateFile: string;
  readonly eventFile: string;
  readonly formations: number;
  readonly changes: number;
  readonly events: number;
  readonly malformed: readonly MalformedLine[];
}

function record(e: Entity): Buffer {
  const buf = Buffer.allocUnsafe(CORPORATE_RECORD_BYTES);
  encodeCorporate(buf, 0, e, true);
  return buf;
}

const withLf = (bytes: Uint8Array): Buffer => Buffer.concat([bytes, Buffer.of(LF)]);

function withFileDate(rec: Buffer, date: string): Buffer {
  rec.write(date, corporateLayout.fileDate.start, 'latin1');
  return rec;
}

/** A stray byte right after the name's text: the line is one byte long and every later field shifted. */
function extraNameByte(rec: Buffer): Buffer {
  const { start, len } = corporateLayout.name;
  let end = start + len;
  while (end > start && rec[end - 1] === 0x20) end--;
  return Buffer.concat([rec.subarray(0, end), Buffer.of(0x23), rec.subarray(end)]);
}

interface MalformedKind {
  readonly reason: string;
  readonly line: (rec: Buffer) => Buffer;
}

/** The lines a strict parser must reject, planted in one daily file. */
const MALFORMED: readonly MalformedKind[] = [
  { reason: 'truncated line: 900 bytes', line: (rec) => withLf(rec.subarray(0, 900)) },
  {
    reason: 'one extra byte in the entity name: 1441 bytes, later fields shifted',
    line: (rec) => withLf(extraNameByte(rec)),
  },
  { reason: 'impossible file date 02302023 (February 30)', line: (rec) => withLf(withFileDate(rec, '02302023')) },
  { reason: 'impossible month in file date 13012020', line: (rec) => withLf(withFileDate(rec, '13012020')) },
];

/** Counts and formation numbering for each workday; the middle day gets the malformed lines. */
export function planDays(ctx: DatasetContext, workdays: readonly number[]): DayPlan[] {
  const middle = Math.floor(workdays.length / 2);
  let next = ctx.entities;
  return workdays.map((fileDay, d) => {
    const rng = new Rng(ctx.seed, STREAM.day, fileDay);
    const formations = Math.max(MIN_FORMATIONS, Math.round(ctx.entities * FORMATION_SHARE * (0.8 + 0.4 * rng.float())));
    const changes = Math.max(MIN_FORMATIONS, Math.round(formations * (0.85 + 0.3 * rng.float())));
    const otherEvents = Math.round(changes * (0.2 + 0.2 * rng.float()));
    const plantMalformed = d === middle;
    const plan = { fileDay, firstIndex: next, formations, changes, otherEvents, plantMalformed };
    // Malformed lines use numbers too, so no document number is ever used twice.
    next += formations + (plantMalformed ? MALFORMED.length : 0);
    return plan;
  });
}

/** Line numbers for the malformed lines: one in each of equal stretches of the file. */
function malformedPositions(rng: Rng, lines: number): Map<number, number> {
  const stretch = Math.floor(lines / MALFORMED.length);
  const positions = new Map<number, number>();
  MALFORMED.forEach((_, k) => positions.set(k * stretch + 1 + rng.int(stretch), k));
  return positions;
}

/** One day's two files being filled: formations, changes with their events, other entities' events. */
class DayWriter {
  readonly corporate = new LineSink();
  readonly events = new LineSink();
  private readonly encoder = new EventEncoder();
  formations = 0;
  changes = 0;
  eventCount = 0;
  private others = 0;

  constructor(
    private readonly ctx: DatasetContext,
    private readonly plan: DayPlan,
  ) {}

  /** Whether the next well-formed line is a formation: the two kinds are shuffled together. */
  nextIsFormation(rng: Rng): boolean {
    const formationsLeft = this.plan.formations - this.formations;
    return rng.float() * (formationsLeft + this.plan.changes - this.changes) < formationsLeft;
  }

  formation(): void {
    const e = formationEntity(this.ctx, this.plan.firstIndex + this.formations++, this.plan.fileDay);
    this.corporateLine(e);
  }

  change(): void {
    const change = dailyChange(this.ctx, this.plan.fileDay, this.changes++);
    const at = this.corporateLine(change.entity);
    // Read the buffer only now: claiming the line may have started a new one.
    this.encoder.useRecord(this.corporate.buffer, at);
    change.events.forEach((ev, k) => this.eventLine(ev, change.firstSequence + k));
    // Other entities' events, spread evenly among the changes.
    const due = Math.round((this.changes * this.plan.otherEvents) / this.plan.changes);
    for (; this.others < due; this.others++) {
      const o = otherEvent(this.ctx, this.plan.fileDay, this.others);
      this.encoder.useEntity(o.entity);
      this.eventLine(o.event, o.sequence);
    }
  }

  /** A malformed line, from an entity numbered after the day's formations. */
  malformed(kind: number): void {
    const e = formationEntity(this.ctx, this.plan.firstIndex + this.plan.formations + kind, this.plan.fileDay);
    this.corporate.append(MALFORMED[kind]!.line(record(e)));
  }

  /** Writes a corporate line; returns where, so its events can reuse the encoded entity. */
  private corporateLine(e: Entity): number {
    const at = this.corporate.claim(CORPORATE_RECORD_BYTES + 1);
    encodeCorporate(this.corporate.buffer, at, e, true);
    this.corporate.buffer[at + CORPORATE_RECORD_BYTES] = LF;
    return at;
  }

  private eventLine(ev: EntityEvent, sequence: number): void {
    const at = this.events.claim(EVENT_RECORD_BYTES + 1);
    this.encoder.encode(this.events.buffer, at, ev, sequence);
    this.events.buffer[at + EVENT_RECORD_BYTES] = LF;
    this.eventCount++;
  }
}

export async function writeDay(
  ctx: DatasetContext,
  outDir: string,
  plan: DayPlan,
  onRecords: (count: number) => void,
): Promise<DayOutput> {
  const stamp = yyyymmdd(plan.fileDay);
  const names = { corporateFile: `${stamp}c.txt`, eventFile: `${stamp}ce.txt` };
  const corporateOut = new FileWriter(join(outDir, names.corporateFile));
  const eventOut = new FileWriter(join(outDir, names.eventFile));
  const day = new DayWriter(ctx, plan);
  const rng = new Rng(ctx.seed, STREAM.dayOrder, plan.fileDay);
  const lines = plan.formations + plan.changes + (plan.plantMalformed ? MALFORMED.length : 0);
  const planted = plan.plantMalformed ? malformedPositions(rng, lines) : new Map<number, number>();
  const malformed: MalformedLine[] = [];
  let reported = 0;
  for (let line = 1; line <= lines; line++) {
    const kind = planted.get(line);
    if (kind !== undefined) {
      day.malformed(kind);
      malformed.push({ file: names.corporateFile, line, reason: MALFORMED[kind]!.reason });
    } else if (day.nextIsFormation(rng)) day.formation();
    else day.change();
    if (line % BATCH === 0 || line === lines) {
      await Promise.all([drainInto(day.corporate, corporateOut.stream), drainInto(day.events, eventOut.stream)]);
      onRecords(day.formations + day.changes - reported);
      reported = day.formations + day.changes;
    }
  }
  await Promise.all([corporateOut.close(), eventOut.close()]);
  return { ...names, formations: day.formations, changes: day.changes, events: day.eventCount, malformed };
}
