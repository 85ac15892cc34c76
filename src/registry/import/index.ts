// `registry import`: applies registry files in date order, each once (by name and checksum).
// Snapshots are swapped in whole; a daily file is applied in one transaction.
import type pg from 'pg';
import { inTransaction } from '../../db/pool.js';
import { prewarmDataset } from '../../db/prewarm.js';
import { datasetAfterImport, moveDatasetCounts, type DatasetCounts } from '../dataset.js';
import { logCorporateChanges, logFilingChanges } from '../feed/daily.js';
import { parseCorporate, parseEvent } from '../parse.js';
import { forgetHistory, keepReplacedRows } from './history.js';
import { applyCorporateChanges, applyEventChanges, openChangeSet, type ChangeCounts } from './changes.js';
import type { ImportObserver, Observed } from './observer.js';
import { silentProgress, type Progress } from './progress.js';
import { readRecords, type ReadStats, type Reject } from './read.js';
import { entityRow, eventRow, officerRows } from './rows.js';
import { loadSnapshot, type SnapshotOptions } from './snapshot.js';
import { checksum, discover, type SourceFile } from './sources.js';
import { vacuumDataset } from './vacuum.js';

/** Held by an import run from its first file to its last; a bulk snapshot reads the dataset under it too. */
export const IMPORT_LOCK = 7_310_002;
const REJECTS_SHOWN = 20;

interface FileSummary {
  file: string;
  kind: SourceFile['kind'];
  file_date: string;
  status: 'imported' | 'already_imported';
  records_read: number;
  records_loaded: number;
  records_updated: number;
  records_skipped_older: number;
  records_rejected: number;
  rejects: Reject[];
  /**
   * What the import's observer (monitoring, docs/webhooks.md) did with the file: the events it wrote, its
   * time within `elapsed_ms`, and the entities it judged (a daily corporate file's).
   */
  events_written: number;
  monitoring_ms: number;
  entities_judged: number;
  /** The changes the file wrote into the change feed (docs/contract.md, "Change feed"), and their time. */
  changes_logged: number;
  change_log_ms: number;
  elapsed_ms: number;
}

export interface ImportSummary {
  files: FileSummary[];
  ignored: string[];
  totals: {
    files_imported: number;
    records_read: number;
    records_loaded: number;
    records_updated: number;
    records_skipped_older: number;
    records_rejected: number;
  };
  dataset: DatasetCounts;
}

/** How files are imported; the snapshot options apply to full loads. */
export interface ImportOptions extends SnapshotOptions {
  progress?: Progress;
  log?: (line: string) => void;
  /**
   * Says why a file's rejected lines are too many to apply it (or null to go on). A refused file is
   * rolled back whole and `importFiles` throws ImportRefused; by default every file is applied.
   */
  refuse?: (stats: ReadStats) => string | null;
  /** Called after each file, applied or skipped: `done` of `total` files. */
  onFile?: (done: number, total: number) => void;
  /** Told of each change in its transaction (src/registry/import/observer.ts); by default nobody is. */
  observer?: ImportObserver;
}

/** A file refused by `ImportOptions.refuse`: nothing of it was applied. */
export class ImportRefused extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
    readonly stats: ReadStats,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'ImportRefused';
  }
}

function checkRefusal(file: SourceFile, stats: ReadStats, refuse: ImportOptions['refuse']): void {
  const reason = refuse?.(stats);
  if (reason) throw new ImportRefused(file.name, reason, stats);
}

/**
 * What the observer did with a file: its events and its time (0 and 0 when it observed nothing); and the changes
 * the file wrote into the change feed, and their time.
 */
interface Observation {
  events: number;
  observerMs: number;
  judged?: number;
  changes: number;
  changesMs: number;
}

interface Outcome extends Omit<ChangeCounts, 'moved'>, ReadStats, Observation {}

async function recordImport(
  client: pg.PoolClient,
  file: SourceFile,
  sum: string,
  startedAt: Date,
  o: Omit<Outcome, keyof Observation>,
): Promise<void> {
  await client.query(
    `INSERT INTO imports (file_name, kind, file_date, checksum, size_bytes, started_at, finished_at,
       records_read, records_loaded, records_updated, records_rejected, rejects)
     VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp(), $7, $8, $9, $10, $11)`,
    [
      file.name,
      file.kind,
      file.fileDate,
      sum,
      file.size,
      startedAt,
      o.read,
      o.loaded,
      o.updated,
      o.rejected,
      JSON.stringify(o.rejects),
    ],
  );
  await client.query(
    `UPDATE dataset_state SET version = version + 1, last_import_at = clock_timestamp(),
       snapshot_date = CASE WHEN $2 THEN $1::date ELSE snapshot_date END,
       newest_file_date = greatest(newest_file_date, $1::date)`,
    [file.fileDate, file.kind === 'quarterly_corporate' && file.fullLoad],
  );
  if (file.fullLoad) await forgetHistory(client);
}

/** A loose file: its records as one change set, applied in one transaction. */
async function applyChanges(
  pool: pg.Pool,
  file: SourceFile,
  sum: string,
  startedAt: Date,
  progress: Progress,
  { refuse, observer }: ImportOptions,
): Promise<Outcome> {
  const corporate = file.kind === 'quarterly_corporate' || file.kind === 'daily_corporate';
  return inTransaction(pool, async (client) => {
    const writer = await openChangeSet(client, corporate ? 'corporate' : 'events');
    progress.start(`applying ${file.name}`, file.contentBytes);
    let stats: ReadStats;
    try {
      stats = corporate
        ? await readRecords(
            file,
            parseCorporate,
            (r, ord) => {
              writer.entity(entityRow(r, null, file.fileDate), ord);
              for (const o of officerRows(r, null)) writer.officer(o, ord);
            },
            () => writer.pump(),
            progress,
          )
        : await readRecords(
            file,
            parseEvent,
            (e, ord) => writer.event(eventRow(e, file.fileDate), ord),
            () => writer.pump(),
            progress,
          );
      await writer.end();
    } finally {
      progress.stop();
    }
    checkRefusal(file, stats, refuse);
    // The observer writes what it reports with the changes, in this transaction (src/registry/import/observer.ts).
    const observation: Observation = { events: 0, observerMs: 0, changes: 0, changesMs: 0 };
    const observe = async (work: () => Promise<Observed | null>): Promise<void> => {
      const started = performance.now();
      const seen = await work();
      observation.observerMs += Math.round(performance.now() - started);
      if (seen) Object.assign(observation, { events: seen.written, judged: seen.judged });
    };
    // The change feed is written with the change it reports, in this transaction, like the observer's records.
    const log = async (work: () => Promise<number>): Promise<void> => {
      const started = performance.now();
      observation.changes = await work();
      observation.changesMs = Math.round(performance.now() - started);
    };
    const changed = { name: file.name, date: file.fileDate };
    let counts: ChangeCounts;
    if (corporate) {
      counts = await applyCorporateChanges(client, 'registry', 'next version');
      await keepReplacedRows(client);
      await log(() => logCorporateChanges(client, changed));
      if (observer) await observe(() => observer.corporateApplied(client, file.name));
    } else {
      await log(() => logFilingChanges(client, changed));
      if (observer) await observe(() => observer.eventsRead(client, file.name));
      counts = await applyEventChanges(client, 'registry', 'next version');
    }
    const outcome = { ...stats, ...counts, ...observation };
    await recordImport(client, file, sum, startedAt, outcome);
    await moveDatasetCounts(client, counts.moved);
    return outcome;
  });
}

/**
 * Prewarms the freshly loaded dataset (src/db/prewarm.ts). The data is in and recorded by then: a failure is
 * logged, not thrown.
 */
async function warmDataset(pool: pg.Pool, log: (line: string) => void): Promise<void> {
  try {
    await prewarmDataset(pool, log);
  } catch (err) {
    log(`dataset: prewarm failed (${err instanceof Error ? err.message : String(err)}); the load stands`);
  }
}

export async function importFiles(
  pool: pg.Pool,
  paths: readonly string[],
  opts: ImportOptions = {},
): Promise<ImportSummary> {
  const progress = opts.progress ?? silentProgress;
  const log = opts.log ?? (() => {});
  const { files, ignored } = await discover(paths);
  const lock = await pool.connect();
  const summaries: FileSummary[] = [];
  let fullLoaded = false;
  /** A daily file was applied after the run's last prewarm. */
  let appliedSinceWarm = false;
  try {
    const { rows } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [IMPORT_LOCK]);
    if (!rows[0]?.ok) {
      log('another import is running; waiting for it to finish');
      await lock.query('SELECT pg_advisory_lock($1)', [IMPORT_LOCK]);
    }
    for (const [i, file] of files.entries()) {
      const started = Date.now();
      const startedAt = new Date(started);
      const sum = await checksum(file.path);
      const seen = await pool.query('SELECT 1 FROM imports WHERE file_name = $1 AND checksum = $2', [file.name, sum]);
      const base = { file: file.path, kind: file.kind, file_date: file.fileDate };
      if (seen.rowCount) {
        log(`${file.name}: already imported, skipped`);
        summaries.push({
          ...base,
          status: 'already_imported',
          records_read: 0,
          records_loaded: 0,
          records_updated: 0,
          records_skipped_older: 0,
          records_rejected: 0,
          rejects: [],
          events_written: 0,
          monitoring_ms: 0,
          entities_judged: 0,
          changes_logged: 0,
          change_log_ms: 0,
          elapsed_ms: Date.now() - started,
        });
        opts.onFile?.(i + 1, files.length);
        continue;
      }
      const o: Outcome = file.fullLoad
        ? await loadSnapshot(
            pool,
            file,
            progress,
            log,
            (client, r) => recordImport(client, file, sum, startedAt, { ...r, updated: 0, skippedOlder: 0 }),
            (stats) => checkRefusal(file, stats, opts.refuse),
            opts,
          ).then((r) => ({ ...r, updated: 0, skippedOlder: 0 }))
        : await applyChanges(pool, file, sum, startedAt, progress, opts);
      fullLoaded ||= file.fullLoad;
      // Once a snapshot's tables are all in (the next file is not another), before the daily files:
      // they read the same rows and index pages at random. The vacuum first (see vacuum.ts).
      if (file.fullLoad && !files[i + 1]?.fullLoad) {
        await vacuumDataset(pool, log);
        await warmDataset(pool, log);
        appliedSinceWarm = false;
      } else if (!file.fullLoad) appliedSinceWarm = true;
      for (const r of o.rejects.slice(0, REJECTS_SHOWN)) log(`rejected ${r.file} line ${r.line}: ${r.reason}`);
      log(
        `${file.name}: ${o.read} read, ${o.loaded} loaded, ${o.updated} updated, ` +
          `${o.skippedOlder} older than stored, ${o.rejected} rejected` +
          (o.observerMs
            ? `; ${opts.observer?.name} ${o.judged === undefined ? '' : `judged ${o.judged} entities, `}` +
              `wrote ${o.events} events in ${o.observerMs} ms`
            : '') +
          `; ${o.changes} changes logged in ${o.changesMs} ms`,
      );
      summaries.push({
        ...base,
        status: 'imported',
        records_read: o.read,
        records_loaded: o.loaded,
        records_updated: o.updated,
        records_skipped_older: o.skippedOlder,
        records_rejected: o.rejected,
        rejects: o.rejects.slice(0, REJECTS_SHOWN),
        events_written: o.events,
        monitoring_ms: o.observerMs,
        entities_judged: o.judged ?? 0,
        changes_logged: o.changes,
        change_log_ms: o.changesMs,
        elapsed_ms: Date.now() - started,
      });
      opts.onFile?.(i + 1, files.length);
    }
    // Daily files also read and write index pages the prewarm left cold, which push the hot pages
    // out of the cache: after daily files the searches ran on random reads again. Pages still cached
    // are read back at memory speed. The vacuum first: it reads the pages the files changed.
    if (appliedSinceWarm) {
      await vacuumDataset(pool, log);
      await warmDataset(pool, log);
    }
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [IMPORT_LOCK]).catch(() => {});
    lock.release();
  }
  const sum = (k: keyof FileSummary): number => summaries.reduce((n, s) => n + (s[k] as number), 0);
  return {
    files: summaries,
    ignored,
    totals: {
      files_imported: summaries.filter((s) => s.status === 'imported').length,
      records_read: sum('records_read'),
      records_loaded: sum('records_loaded'),
      records_updated: sum('records_updated'),
      records_skipped_older: sum('records_skipped_older'),
      records_rejected: sum('records_rejected'),
    },
    dataset: await datasetAfterImport(pool, fullLoaded),
  };
}
