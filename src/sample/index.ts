// A deterministic, streaming generator of the registry's bulk files: the quarterly snapshot (cordata.zip,
// corevent.zip) and the daily files after it, and match rows with their truth when asked. The same options give
// byte-identical files.
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { planDays, writeDay, type DayPlan, type MalformedLine } from './daily.js';
import { isoOf, lastWorkdays, localNoonOf, parseIsoDay, todayUtc } from './dates.js';
import { writeMatchRows, type MatchRowsSummary } from './match-rows.js';
import type { DatasetContext } from './model.js';
import { writeSnapshot } from './snapshot.js';
import { defaultWorkers } from './source.js';

export interface GenerateOptions {
  entities: number;
  outDir: string;
  seed: number;
  /** Workdays of daily files after the snapshot. */
  days: number;
  /** `YYYY-MM-DD`, the last daily file's date at the latest (default today, UTC). */
  endDate?: string;
  onProgress?: (done: number, total: number) => void;
  /** Worker threads generating the snapshot; 0 generates in this thread. Default: by size and cores. */
  workers?: number;
  /** Match rows to write beside the files (docs/bulk-files.md, "Match rows"); none by default. */
  matchRows?: number;
}

type FileKind = 'quarterly_corporate' | 'quarterly_events' | 'daily_corporate' | 'daily_events';

interface GeneratedFile {
  name: string;
  kind: FileKind;
  records: number;
  bytes: number;
}

export interface GenerateSummary {
  out_dir: string;
  seed: number;
  end_date: string;
  snapshot_date: string;
  entities: number;
  workers: number;
  files: GeneratedFile[];
  daily: { new_entities: number; changed_entities: number; events: number };
  malformed_lines: MalformedLine[];
  match_rows: MatchRowsSummary | null;
  elapsed_ms: number;
  records_per_second: number;
}

/** Zip deflate level: the cheapest. Even so, compressing costs about as much CPU as generating the records. */
const COMPRESSION_LEVEL = 1;
/** Above this many entities a tenth of them (a member) may pass 4 GB uncompressed. */
const ZIP64_ENTITIES = 20_000_000;

function validate(opts: GenerateOptions): void {
  if (!Number.isSafeInteger(opts.entities) || opts.entities < 1) throw new Error('entities must be a positive integer');
  if (opts.entities > 900_000_000) throw new Error('entities must leave room for nine-digit document numbers');
  if (!Number.isSafeInteger(opts.seed)) throw new Error('seed must be an integer');
  if (!Number.isSafeInteger(opts.days) || opts.days < 0) throw new Error('days must be a non-negative integer');
  if (opts.workers !== undefined && !(Number.isSafeInteger(opts.workers) && opts.workers >= 0)) {
    throw new Error('workers must be a non-negative integer');
  }
  if (opts.matchRows !== undefined && !(Number.isSafeInteger(opts.matchRows) && opts.matchRows >= 0)) {
    throw new Error('match rows must be a non-negative integer');
  }
}

export async function generateDataset(opts: GenerateOptions): Promise<GenerateSummary> {
  validate(opts);
  const started = performance.now();
  const endDay = opts.endDate ? parseIsoDay(opts.endDate) : todayUtc();
  const workdays = lastWorkdays(endDay, opts.days);
  // The snapshot is taken the calendar day before the first daily file.
  const snapshotDay = (workdays[0] ?? endDay + 1) - 1;
  const ctx: DatasetContext = { seed: opts.seed, snapshotDay, entities: opts.entities };
  const plans = planDays(ctx, workdays);
  const total = opts.entities + plans.reduce((n, p) => n + p.formations + p.changes, 0);
  const outDir = resolve(opts.outDir);
  await mkdir(outDir, { recursive: true });

  const zipOptions = {
    mtime: localNoonOf(snapshotDay),
    compressionLevel: COMPRESSION_LEVEL,
    zip64: opts.entities > ZIP64_ENTITIES,
  };
  const workers = opts.workers ?? defaultWorkers(opts.entities);
  const snapshot = await writeSnapshot(ctx, outDir, zipOptions, workers, (done) => opts.onProgress?.(done, total));
  const files: GeneratedFile[] = [
    { name: 'cordata.zip', kind: 'quarterly_corporate', records: snapshot.corporate, bytes: 0 },
    { name: 'corevent.zip', kind: 'quarterly_events', records: snapshot.events, bytes: 0 },
  ];
  const daily = await writeDays(ctx, outDir, plans, files, (done) => opts.onProgress?.(opts.entities + done, total));
  for (const f of files) f.bytes = (await stat(join(outDir, f.name))).size;
  const matchRows = opts.matchRows ? await writeMatchRows(ctx, plans, outDir, opts.matchRows) : null;

  const elapsed = performance.now() - started;
  return {
    out_dir: outDir,
    seed: opts.seed,
    end_date: isoOf(endDay),
    snapshot_date: isoOf(snapshotDay),
    entities: opts.entities,
    workers,
    files,
    daily: daily.counts,
    malformed_lines: daily.malformed,
    match_rows: matchRows,
    elapsed_ms: Math.round(elapsed),
    records_per_second: Math.round(total / (elapsed / 1000)),
  };
}

async function writeDays(
  ctx: DatasetContext,
  outDir: string,
  plans: readonly DayPlan[],
  files: GeneratedFile[],
  onProgress: (done: number) => void,
): Promise<{ counts: GenerateSummary['daily']; malformed: MalformedLine[] }> {
  const counts = { new_entities: 0, changed_entities: 0, events: 0 };
  const malformed: MalformedLine[] = [];
  let done = 0;
  for (const plan of plans) {
    const day = await writeDay(ctx, outDir, plan, (n) => onProgress((done += n)));
    files.push(
      { name: day.corporateFile, kind: 'daily_corporate', records: day.formations + day.changes, bytes: 0 },
      { name: day.eventFile, kind: 'daily_events', records: day.events, bytes: 0 },
    );
    counts.new_entities += day.formations;
    counts.changed_entities += day.changes;
    counts.events += day.events;
    malformed.push(...day.malformed);
  }
  return { counts, malformed };
}
