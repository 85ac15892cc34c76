// What a refresh fetches, from the source's listing and what the dataset already holds. The dataset
// only ever moves forward day by day: a workday whose daily file is missing on the source holds
// back every file after it, until the file appears or the source has moved on far enough that the
// day was evidently never published (a holiday, a closure).
import { addDays } from '../../clock.js';
import type { FileKind } from '../import/sources.js';
import type { ListedFile } from './source.js';

/** A missing workday is given up once the source holds daily files for this many later workdays. */
const MISSING_DAY_GIVE_UP = 2;

export interface AppliedState {
  /** `name` and `size` of every file already applied (imports). */
  readonly applied: ReadonlySet<string>;
  readonly snapshotDate: string | null;
  /** The newest daily corporate file applied. */
  readonly newestDailyDate: string | null;
}

export const appliedKey = (name: string, size: number): string => `${name}\u0000${size}`;

export interface HeldBack {
  readonly file: ListedFile;
  readonly reason: string;
}

export interface DailyPlan {
  /** In the order to apply them: by date, a day's corporate file before its events. */
  readonly fetch: ListedFile[];
  readonly heldBack: HeldBack[];
  /** The workday without a daily file that holds the later files back. */
  readonly missingDay: string | null;
  /** Workdays without a daily file that were given up (the source has moved on past them). */
  readonly skippedDays: string[];
  readonly alreadyApplied: number;
  /** Daily files dated on or before the snapshot (its records are in it). */
  readonly olderThanSnapshot: number;
}

const KIND_ORDER: Record<FileKind, number> = {
  quarterly_corporate: 0,
  quarterly_events: 1,
  daily_corporate: 2,
  daily_events: 3,
};

const byApplyOrder = (a: ListedFile, b: ListedFile): number =>
  (a.fileDate ?? '').localeCompare(b.fileDate ?? '') ||
  KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
  a.name.localeCompare(b.name);

const isApplied = (state: AppliedState, f: ListedFile): boolean => state.applied.has(appliedKey(f.name, f.size));

/** The quarterly zips on the source that are not the ones applied: a new snapshot, to load first. */
export function planSnapshots(listed: readonly ListedFile[], state: AppliedState): ListedFile[] {
  return listed.filter((f) => f.fileDate === null && !isApplied(state, f)).sort(byApplyOrder);
}

const isWorkday = (iso: string): boolean => {
  const d = new Date(`${iso}T00:00:00Z`).getUTCDay();
  return d >= 1 && d <= 5;
};

const later = (a: string | null, b: string | null): string | null => (a && b ? (a > b ? a : b) : (a ?? b));

export function planDaily(listed: readonly ListedFile[], state: AppliedState): DailyPlan {
  const daily = listed.filter((f) => f.fileDate !== null);
  const pending = daily
    .filter((f) => !isApplied(state, f) && (state.snapshotDate === null || f.fileDate! > state.snapshotDate))
    .sort(byApplyOrder);
  const alreadyApplied = daily.filter((f) => isApplied(state, f)).length;
  const olderThanSnapshot = daily.length - alreadyApplied - pending.length;

  // Look for missing workdays between what the dataset holds and the newest daily file listed.
  const corporateDays = new Set(daily.filter((f) => f.kind === 'daily_corporate').map((f) => f.fileDate!));
  const newestPending = pending.filter((f) => f.kind === 'daily_corporate').at(-1)?.fileDate ?? null;
  const held = later(state.newestDailyDate, state.snapshotDate);
  const skippedDays: string[] = [];
  let missingDay: string | null = null;
  if (held && newestPending) {
    for (let day = addDays(held, 1); day < newestPending; day = addDays(day, 1)) {
      if (!isWorkday(day) || corporateDays.has(day)) continue;
      const laterDays = [...corporateDays].filter((d) => d > day && isWorkday(d)).length;
      if (laterDays >= MISSING_DAY_GIVE_UP) {
        skippedDays.push(day);
        continue;
      }
      missingDay = day;
      break;
    }
  }
  const fetch = missingDay ? pending.filter((f) => f.fileDate! < missingDay) : pending;
  const heldBack = missingDay
    ? pending
        .filter((f) => f.fileDate! >= missingDay)
        .map((file) => ({ file, reason: `the daily file of ${missingDay} (a workday) is not on the source yet` }))
    : [];
  return { fetch, heldBack, missingDay, skippedDays, alreadyApplied, olderThanSnapshot };
}
