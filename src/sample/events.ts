// Filing history: annual reports, amendments, agent and name changes, reinstatements, and for inactive
// entities the event that ended them. Codes come from codes.ts.
import { inactivationOf } from '../registry/codes.js';
import { documentNumberOf, isForeign, isLlc } from './core.js';
import { dayOf, yearOf } from './dates.js';
import type { AnnualReport, DatasetContext, DateField, EntityEvent } from './model.js';
import { businessName } from './names.js';
import { Weighted, type Rng } from './random.js';
import type { Text } from './text.js';

/** The 40-byte description beside each code. */
export const EVENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  CORAPAMND: 'AMENDMENT',
  CORLCAMND: 'LC AMENDMENT',
  CORAPRSTAR: 'RESTATED ARTICLES',
  CORAPARTCR: 'ARTICLES OF CORRECTION',
  CORAPAMDNC: 'AMENDMENT AND NAME CHANGE',
  CORAPNC: 'NAME CHANGE',
  CORLCNC: 'LC NAME CHANGE',
  CORLCAMDNC: 'LC AMENDMENT AND NAME CHANGE',
  CORAPREIN: 'REINSTATEMENT',
  CORAPMER: 'MERGER',
  CORAPCMER: 'CROSS-ENTITY MERGER',
  CORAPCONV: 'CONVERSION',
  CORAPVOLDS: 'VOLUNTARY DISSOLUTION',
  CORAMADDIS: 'ADMIN DISSOLUTION',
  CORAMADMAR: 'ADMIN DISSOLUTION FOR ANNUAL REPORT',
  CORAMINVOL: 'INVOLUNTARY DISSOLUTION',
  CORAMDCO: 'DISSOLVED BY COURT ORDER',
  CORAMADREV: 'ADMIN REVOCATION',
  CORAMREV: 'REVOCATION',
  CORAPWITH: 'WITHDRAWAL',
  CORAMEXP: 'EXPIRATION',
  CORLCRACHG: 'LC REGISTERED AGENT CHANGE',
  CORAPRACHG: 'REGISTERED AGENT CHANGE',
  CORAPANRPT: 'ANNUAL REPORT',
  CORLCANRPT: 'LC ANNUAL REPORT',
};

export const annualReportCode = (type: string): string => (isLlc(type) ? 'CORLCANRPT' : 'CORAPANRPT');
export const amendmentCode = (type: string): string => (isLlc(type) ? 'CORLCAMND' : 'CORAPAMND');
export const agentChangeCode = (type: string): string => (isLlc(type) ? 'CORLCRACHG' : 'CORAPRACHG');
export function nameChangeCode(type: string, rng: Rng): string {
  if (isLlc(type)) return rng.chance(0.6) ? 'CORLCNC' : 'CORLCAMDNC';
  return rng.chance(0.5) ? 'CORAPNC' : 'CORAPAMDNC';
}

const BLANK_NOTES: readonly Text[] = ['', '', ''];
const NO_EXTRA: Partial<EntityEvent> = {};

/** An event filed on `filed`; most carry the same effective date, some none (blank or zeros). */
export function makeEvent(rng: Rng, code: string, filed: number, extra: Partial<EntityEvent> = NO_EXTRA): EntityEvent {
  const r = rng.float();
  const effective: DateField = extra.effective ?? (r < 0.72 ? filed : r < 0.93 ? '' : '00000000');
  return {
    code,
    filed,
    effective,
    notes: extra.notes ?? BLANK_NOTES,
    mergerNumber: extra.mergerNumber ?? '',
    nameChange: extra.nameChange ?? false,
  };
}

const DOMESTIC_ENDINGS = new Weighted<string>([
  ['CORAMADMAR', 58],
  ['CORAPVOLDS', 20],
  ['CORAMADDIS', 10],
  ['CORAPMER', 4],
  ['CORAPCMER', 1],
  ['CORAPCONV', 2],
  ['CORAMINVOL', 1],
  ['CORAMDCO', 0.5],
  ['CORAMREV', 0.5],
  ['CORAMEXP', 0.3],
]);
const FOREIGN_ENDINGS = new Weighted<string>([
  ['CORAMADREV', 45],
  ['CORAPWITH', 25],
  ['CORAMADMAR', 10],
  ['CORAPVOLDS', 5],
  ['CORAPMER', 5],
  ['CORAMREV', 3],
  ['CORAMADDIS', 4],
  ['CORAMEXP', 0.5],
]);

export interface Inactivation {
  readonly code: string;
  readonly date: number;
}

/** The Friday ending September's fourth week: when the Division dissolves those without an annual report. */
const septemberSweep = (year: number, rng: Rng): number => dayOf(year, 9, rng.between(22, 28));

/** How and when an inactive entity ended, between its file date and the snapshot. */
export function inactivation(rng: Rng, type: string, fileDate: number, snapshotDay: number): Inactivation {
  const code = (isForeign(type) ? FOREIGN_ENDINGS : DOMESTIC_ENDINGS).pick(rng);
  const snapshotYear = yearOf(snapshotDay);
  const lastSweep = dayOf(snapshotYear, 9, 28) < snapshotDay ? snapshotYear : snapshotYear - 1;
  const firstSweep = yearOf(fileDate) + 1;
  if (code === 'CORAMADMAR' && firstSweep <= lastSweep) {
    // Most are dissolved at the first or second sweep they miss.
    const year = Math.min(lastSweep, firstSweep + Math.floor(-Math.log(1 - rng.float()) * 2.5));
    return { code, date: septemberSweep(year, rng) };
  }
  const ended = code === 'CORAMADMAR' ? 'CORAPVOLDS' : code;
  return { code: ended, date: fileDate + 1 + rng.int(Math.max(1, snapshotDay - fileDate - 1)) };
}

/** The day an annual report for `year` was filed: mostly January to April, a few late. */
function reportDay(rng: Rng, year: number): number {
  const offset = rng.chance(0.86) ? rng.int(120) : 120 + rng.int(240);
  return dayOf(year, 1, 1) + offset;
}

/** Up to three annual reports, most recent first, for the years after the filing year up to `until`. */
export function annualReports(rng: Rng, fileDate: number, until: number, skipYear: number): AnnualReport[] {
  const out: AnnualReport[] = [];
  for (let year = yearOf(until); year > yearOf(fileDate) && out.length < 3; year--) {
    if (year === skipYear || rng.chance(0.07)) continue;
    const date = reportDay(rng, year);
    if (date <= until) out.push({ year, date });
  }
  return out;
}

export interface HistoryInput {
  readonly type: string;
  readonly fileDate: number;
  readonly annualReports: readonly AnnualReport[];
  readonly end?: Inactivation;
}

const dayBetween = (rng: Rng, from: number, to: number): number => from + rng.int(Math.max(1, to - from));

function survivorEvent(rng: Rng, ctx: DatasetContext, end: Inactivation): EntityEvent {
  const survivor = documentNumberOf(ctx, rng.int(ctx.entities));
  return makeEvent(rng, end.code, end.date, { effective: end.date, mergerNumber: survivor });
}

function endingEvent(rng: Rng, ctx: DatasetContext, end: Inactivation): EntityEvent {
  const merged = inactivationOf(end.code)?.letter === 'm';
  return merged ? survivorEvent(rng, ctx, end) : makeEvent(rng, end.code, end.date);
}

const byFiledDate = (a: EntityEvent, b: EntityEvent): number => a.filed - b.filed;

/** Annual reports and occasional amendments, oldest first, then the ending if any. */
export function history(rng: Rng, ctx: DatasetContext, input: HistoryInput): EntityEvent[] {
  const { type, fileDate, end } = input;
  const until = end ? end.date : ctx.snapshotDay;
  const events: EntityEvent[] = [];
  for (const report of input.annualReports) {
    if (rng.chance(0.45)) events.push(makeEvent(rng, annualReportCode(type), report.date));
  }
  if (fileDate < until) {
    if (rng.chance(0.16)) events.push(makeEvent(rng, agentChangeCode(type), dayBetween(rng, fileDate + 1, until)));
    if (rng.chance(0.12)) events.push(makeEvent(rng, amendmentCode(type), dayBetween(rng, fileDate + 1, until)));
    if (rng.chance(0.03))
      events.push(makeEvent(rng, rng.chance(0.7) ? 'CORAPARTCR' : 'CORAPRSTAR', dayBetween(rng, fileDate + 1, until)));
    if (rng.chance(0.05)) {
      const notes = [formerNote(businessName(rng, type)), '', ''];
      events.push(
        makeEvent(rng, nameChangeCode(type, rng), dayBetween(rng, fileDate + 1, until), { notes, nameChange: true }),
      );
    }
    if (!end) events.push(...reinstatement(rng, fileDate, until));
  }
  events.sort(byFiledDate);
  if (end) events.push(endingEvent(rng, ctx, end));
  return events;
}

/** `FORMERLY: OLD NAME`, as UTF-8 or 1252 bytes like the name it quotes. */
export function formerNote(name: Text): Text {
  if (typeof name === 'string') return `FORMERLY: ${name}`;
  return Buffer.concat([Buffer.from('FORMERLY: ', 'latin1'), name]);
}

/** Some active entities were once dissolved for a missed report and reinstated. */
function reinstatement(rng: Rng, fileDate: number, until: number): EntityEvent[] {
  if (!rng.chance(0.08)) return [];
  const sweepYear = yearOf(fileDate) + 1 + rng.int(Math.max(1, yearOf(until) - yearOf(fileDate) - 1));
  const dissolved = septemberSweep(sweepYear, rng);
  if (dissolved <= fileDate || dissolved + 30 >= until) return [];
  const reinstated = dayBetween(rng, dissolved + 30, Math.min(until, dissolved + 400));
  return [makeEvent(rng, 'CORAMADMAR', dissolved, { effective: dissolved }), makeEvent(rng, 'CORAPREIN', reinstated)];
}
