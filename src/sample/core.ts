// The first draws of every entity: its type, whether it is active, its file date, hence its document number.
// Kept apart so another record (a merger's survivor) can name an entity without deriving all of it.
import { DOCUMENT_PREFIX } from '../registry/layout.js';
import { dayOf, yearOf } from './dates.js';
import type { DatasetContext } from './model.js';
import { Rng, STREAM, Weighted } from './random.js';

/** The historical registry's mix of types. */
const SNAPSHOT_TYPES = new Weighted<string>([
  ['FLAL', 50],
  ['DOMP', 30],
  ['DOMNP', 8],
  ['FORP', 4],
  ['FORL', 4],
  ['FORNP', 1.2],
  ['DOMLP', 1],
  ['FORLP', 0.6],
  ['NPREG', 0.3],
  ['TRUST', 0.4],
  ['AGENT', 0.5],
]);

/** A real day's new filings (2023-09-29 in docs/bulk-files.md). */
export const DAILY_TYPES = new Weighted<string>([
  ['FLAL', 1685],
  ['DOMP', 362],
  ['DOMNP', 66],
  ['FORL', 57],
  ['FORP', 16],
  ['DOMLP', 1],
  ['FORLP', 1],
]);

/** First letters for the types layout.ts leaves without one. */
const OTHER_PREFIX: Readonly<Record<string, string>> = { FORNP: 'F', NPREG: 'N', TRUST: 'T', AGENT: 'X' };

export const isForeign = (type: string): boolean => type.startsWith('FOR');
export const isLlc = (type: string): boolean => type === 'FLAL' || type === 'FORL';

const ACTIVE_SHARE = 0.45;

export interface Core {
  readonly type: string;
  readonly active: boolean;
  readonly fileDate: number;
}

/** Prefix letter, two-digit filing year, nine digits of the record's index: twelve characters, unique. */
export function documentNumber(type: string, fileDate: number, index: number): string {
  const prefix = DOCUMENT_PREFIX[type] ?? OTHER_PREFIX[type] ?? 'X';
  const yy = String(yearOf(fileDate) % 100).padStart(2, '0');
  return prefix + yy + String(index).padStart(9, '0');
}

/** LLCs exist in numbers only from the 1990s; corporations go back to the 1950s. */
const earliestYear = (type: string): number => (isLlc(type) ? 1994 : 1950);

function snapshotFileDate(rng: Rng, type: string, active: boolean, snapshotDay: number): number {
  const r = rng.float();
  if (r < 0.0008 && !isLlc(type)) return dayOf(rng.between(1925, 1949), rng.between(1, 12), rng.between(1, 28));
  // A delayed effective date puts a few active filings after the snapshot.
  if (r < 0.0015 && active) return snapshotDay + rng.between(1, 90);
  const spanDays = (snapshotDay - dayOf(earliestYear(type), 1, 1)) | 0;
  const meanDays = (active ? 6 : 12) * 365.25;
  let age = Math.floor(-Math.log(1 - rng.float()) * meanDays);
  if (age > spanDays) age = rng.int(spanDays);
  // An inactive entity lived long enough to be dissolved before the snapshot.
  return snapshotDay - (active ? age : Math.max(age, 90));
}

export function snapshotCore(rng: Rng, snapshotDay: number): Core {
  const type = SNAPSHOT_TYPES.pick(rng);
  const active = rng.chance(ACTIVE_SHARE);
  return { type, active, fileDate: snapshotFileDate(rng, type, active, snapshotDay) };
}

export function snapshotRng(ctx: DatasetContext, index: number): Rng {
  return new Rng(ctx.seed, STREAM.snapshot, index);
}

/** The document number of snapshot entity `index`, from its first draws only. */
export function documentNumberOf(ctx: DatasetContext, index: number): string {
  const core = snapshotCore(snapshotRng(ctx, index), ctx.snapshotDay);
  return documentNumber(core.type, core.fileDate, index);
}
