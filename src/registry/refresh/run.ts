// The daily refresh: list the source, fetch what the dataset lacks, and apply it through the importer
// in date order (a new quarterly snapshot first, swapped in whole). Each file either lands whole or
// not at all; the first that fails stops the run, later ones wait, and the next run picks up from
// there. Every file's outcome is recorded in refresh_files, the run's in job_runs.
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/index.js';
import { importFiles, ImportRefused } from '../import/index.js';
import type { ImportObserver } from '../import/observer.js';
import {
  endsWithLineEnd,
  fetchFile,
  FetchFailed,
  partName,
  withRetries,
  type Fetched,
  type FetchOptions,
} from './fetch.js';
import { LocalSource } from './local-source.js';
import { appliedKey, planDaily, planSnapshots, type AppliedState, type HeldBack } from './plan.js';
import { tooManyRejects } from './refuse.js';
import { SftpSource } from './sftp-source.js';
import type { ListedFile, RegistrySource } from './source.js';

/** Listing or downloading is tried this many times in one run before the run gives up. */
const ATTEMPTS = 3;

export interface RefreshDeps {
  readonly pool: pg.Pool;
  readonly config: Config;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  /** The job_runs row the outcomes belong to. */
  readonly runId?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of each file's changes (src/registry/import/observer.ts). */
  readonly observer?: ImportObserver;
}

function openSource(config: Config, log: (line: string) => void): RegistrySource {
  const source = config.registrySource;
  if (!source)
    throw new Error(
      'REGISTRY_SOURCE is not set: nothing to refresh from (a directory, or sftp://user:password@host/path)',
    );
  return source.kind === 'local' ? new LocalSource(source.dir) : new SftpSource(source, log);
}

export const downloadDir = (config: Config): string => path.join(config.dataDir, 'downloads');

async function appliedState(pool: pg.Pool): Promise<AppliedState> {
  const { rows } = await pool.query<{ file_name: string; size_bytes: number }>(
    'SELECT file_name, size_bytes FROM imports',
  );
  const { rows: s } = await pool.query<{ snapshot_date: string | null; newest_daily: string | null }>(
    `SELECT snapshot_date::text,
            (SELECT max(file_date)::text FROM imports WHERE kind = 'daily_corporate') AS newest_daily
     FROM dataset_state`,
  );
  return {
    applied: new Set(rows.map((r) => appliedKey(r.file_name, r.size_bytes))),
    snapshotDate: s[0]!.snapshot_date,
    newestDailyDate: s[0]!.newest_daily,
  };
}

type Outcome = 'applied' | 'already_imported' | 'download_failed' | 'refused' | 'import_failed' | 'held_back';

interface Step {
  outcome: Outcome;
  fileDate?: string | null;
  resumedFrom?: number;
  downloaded?: number;
  attempts?: number;
  read?: number;
  rejected?: number;
  error?: string;
}

async function record(pool: pg.Pool, runId: number | undefined, file: ListedFile, step: Step): Promise<void> {
  await pool.query(
    `INSERT INTO refresh_files (job_run_id, file_name, remote_path, kind, file_date, size_bytes, modified_at, outcome,
       resumed_from, downloaded_bytes, attempts, records_read, records_rejected, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      runId ?? null,
      file.name,
      file.path,
      file.kind,
      step.fileDate ?? file.fileDate,
      file.size,
      file.modifiedAt,
      step.outcome,
      step.resumedFrom ?? 0,
      step.downloaded ?? 0,
      step.attempts ?? 0,
      step.read ?? null,
      step.rejected ?? null,
      step.error ?? null,
    ],
  );
}

interface Totals {
  applied: string[];
  alreadyImported: number;
  downloadedBytes: number;
  resumed: number;
}

/** Fetches and applies one file; returns why it failed, or null once it is in the dataset. */
async function applyOne(
  deps: RefreshDeps,
  source: RegistrySource,
  file: ListedFile,
  fetchOpts: FetchOptions,
  totals: Totals,
): Promise<string | null> {
  const { pool, log, runId, observer } = deps;
  let fetched: Fetched;
  try {
    fetched = await fetchFile(source, file, downloadDir(deps.config), fetchOpts);
  } catch (err) {
    const f = err instanceof FetchFailed ? err : null;
    const error = (err as Error).message;
    await record(pool, runId, file, {
      outcome: 'download_failed',
      resumedFrom: f?.resumedFrom ?? 0,
      downloaded: f?.downloaded ?? 0,
      attempts: f?.attempts ?? 1,
      error,
    });
    return error;
  }
  totals.downloadedBytes += fetched.downloaded;
  if (fetched.resumedFrom > 0) totals.resumed++;
  const transfer = { resumedFrom: fetched.resumedFrom, downloaded: fetched.downloaded, attempts: fetched.attempts };
  try {
    if (file.fileDate !== null && !(await endsWithLineEnd(fetched.path))) {
      const error = `${file.name} refused: cut short (its last record has no line end)`;
      await record(pool, runId, file, { ...transfer, outcome: 'refused', error });
      return error;
    }
    const summary = await importFiles(pool, [fetched.path], { log, refuse: tooManyRejects, observer });
    const s = summary.files[0]!;
    const outcome = s.status === 'imported' ? 'applied' : 'already_imported';
    await record(pool, runId, file, {
      ...transfer,
      outcome,
      fileDate: s.file_date,
      read: s.records_read,
      rejected: s.records_rejected,
    });
    if (outcome === 'applied') totals.applied.push(file.name);
    else totals.alreadyImported++;
    return null;
  } catch (err) {
    const refused = err instanceof ImportRefused;
    const error = refused
      ? `${file.name} refused: ${err.reason}`
      : `${file.name}: import failed: ${(err as Error).message}`;
    await record(pool, runId, file, {
      ...transfer,
      outcome: refused ? 'refused' : 'import_failed',
      ...(refused ? { read: err.stats.read, rejected: err.stats.rejected } : {}),
      error,
    });
    return error;
  } finally {
    // Applied or not, the download is done with: the source keeps the file, `imports` its checksum.
    await rm(fetched.path, { force: true });
  }
}

/** Applies `files` in order; at the first failure, records the rest (and `waiting`) as held back. */
async function applyInOrder(
  deps: RefreshDeps,
  source: RegistrySource,
  files: readonly ListedFile[],
  waiting: readonly HeldBack[],
  fetchOpts: FetchOptions,
  totals: Totals,
): Promise<string | null> {
  for (const [i, file] of files.entries()) {
    const failure = await applyOne(deps, source, file, fetchOpts, totals);
    if (!failure) continue;
    const rest = [...files.slice(i + 1).map((f) => ({ file: f, reason: `waits for ${file.name}` })), ...waiting];
    for (const h of rest) await record(deps.pool, deps.runId, h.file, { outcome: 'held_back', error: h.reason });
    return rest.length > 0 ? `${failure}; ${rest.length} later file(s) held back` : failure;
  }
  return null;
}

const fetchOptions = (deps: RefreshDeps): FetchOptions => ({
  attempts: ATTEMPTS,
  retryDelayMs: deps.config.refreshRetrySeconds * 1000,
  log: deps.log,
  ...(deps.sleep ? { sleep: deps.sleep } : {}),
});

async function listSource(source: RegistrySource, opts: FetchOptions): Promise<ListedFile[]> {
  try {
    return await withRetries(`listing ${source.description}`, opts, () => source.list());
  } catch (err) {
    throw new Error(`listing ${source.description} failed after ${opts.attempts} attempts: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Records a successful refresh and the files applied since the previous one: by this run and by
 * failed runs in between (each applied what came before the file it stopped at).
 */
async function markRefreshed(pool: pg.Pool, at: Date): Promise<void> {
  await pool.query(
    `UPDATE dataset_state SET last_refresh_at = $1, last_refresh_files = coalesce((
       SELECT json_agg(json_build_object('file', f.file_name, 'kind', f.kind, 'file_date', f.file_date::text)
                       ORDER BY f.id)
       FROM refresh_files f
       WHERE f.outcome = 'applied'
         AND f.job_run_id > coalesce(
           (SELECT max(id) FROM job_runs WHERE job = 'refresh' AND status = 'succeeded'), 0)), '[]')`,
    [at],
  );
}

/** One refresh; throws (with the reason) when anything available could not be applied. */
export async function runRefresh(deps: RefreshDeps): Promise<Record<string, number | string>> {
  const { pool, log } = deps;
  const source = openSource(deps.config, log);
  await mkdir(downloadDir(deps.config), { recursive: true });
  const fetchOpts = fetchOptions(deps);
  const totals: Totals = { applied: [], alreadyImported: 0, downloadedBytes: 0, resumed: 0 };
  try {
    const listed = await listSource(source, fetchOpts);
    log(`refresh: ${listed.length} registry files on ${source.description}`);
    const snapshots = planSnapshots(listed, await appliedState(pool));
    if (snapshots.length > 0) log(`refresh: a new quarterly snapshot: ${snapshots.map((f) => f.name).join(', ')}`);
    const snapshotFailure = await applyInOrder(deps, source, snapshots, [], fetchOpts, totals);
    if (snapshotFailure) throw new Error(`${snapshotFailure}; the daily files wait for the snapshot`);

    const plan = planDaily(listed, await appliedState(pool));
    for (const day of plan.skippedDays)
      log(
        `refresh: no daily file for ${day} (a workday) while later days are there: ` +
          'taken as a day the registry did not publish',
      );
    const failure = await applyInOrder(deps, source, plan.fetch, plan.heldBack, fetchOpts, totals);
    if (failure) throw new Error(failure);
    if (plan.missingDay) {
      for (const h of plan.heldBack) await record(pool, deps.runId, h.file, { outcome: 'held_back', error: h.reason });
      throw new Error(
        `no daily file for ${plan.missingDay} (a workday) on the source; ` +
          `${plan.heldBack.length} later file(s) held back until it appears`,
      );
    }
    await markRefreshed(pool, deps.clock.now());
    log(
      `refresh: ${totals.applied.length} file(s) applied` +
        `${totals.applied.length ? `: ${totals.applied.join(', ')}` : ''}`,
    );
    return {
      source: source.description,
      listed: listed.length,
      applied: totals.applied.length,
      already_imported: totals.alreadyImported,
      downloaded_bytes: totals.downloadedBytes,
      resumed_downloads: totals.resumed,
      ...(plan.skippedDays.length ? { days_not_published: plan.skippedDays.join(' ') } : {}),
      ...source.details(),
    };
  } finally {
    await source.close();
  }
}

interface PlannedFile {
  file: string;
  kind: string;
  file_date: string | null;
  size_bytes: number;
  modified_at: string;
  source_path: string;
  /** Bytes an interrupted download left, which this fetch resumes from. */
  partial_bytes: number;
}

export interface RefreshPlan {
  source: string;
  listed: number;
  /** A new quarterly snapshot, loaded (and swapped in) first. */
  snapshots: PlannedFile[];
  daily: PlannedFile[];
  held_back: Array<{ file: string; reason: string }>;
  missing_day: string | null;
  days_not_published: string[];
  already_applied: number;
  older_than_snapshot: number;
  download_bytes: number;
  note: string | null;
}

async function partialBytes(dir: string, file: ListedFile): Promise<number> {
  const part = await stat(path.join(dir, partName(file))).catch(() => null);
  return part ? Math.min(part.size, file.size) : 0;
}

/** What a refresh would fetch now (`registry refresh --dry-run`): lists the source, changes nothing. */
export async function planRefresh(deps: RefreshDeps): Promise<RefreshPlan> {
  const source = openSource(deps.config, deps.log);
  try {
    const listed = await listSource(source, fetchOptions(deps));
    const state = await appliedState(deps.pool);
    const snapshots = planSnapshots(listed, state);
    const plan = planDaily(listed, state);
    const dir = downloadDir(deps.config);
    const describe = async (f: ListedFile): Promise<PlannedFile> => ({
      file: f.name,
      kind: f.kind,
      file_date: f.fileDate,
      size_bytes: f.size,
      modified_at: f.modifiedAt.toISOString(),
      source_path: f.path,
      partial_bytes: await partialBytes(dir, f),
    });
    const planned = {
      snapshots: await Promise.all(snapshots.map(describe)),
      daily: await Promise.all(plan.fetch.map(describe)),
    };
    return {
      source: source.description,
      listed: listed.length,
      ...planned,
      held_back: plan.heldBack.map((h) => ({ file: h.file.name, reason: h.reason })),
      missing_day: plan.missingDay,
      days_not_published: plan.skippedDays,
      already_applied: plan.alreadyApplied,
      older_than_snapshot: plan.olderThanSnapshot,
      download_bytes: [...planned.snapshots, ...planned.daily].reduce((n, f) => n + f.size_bytes - f.partial_bytes, 0),
      note:
        snapshots.length > 0
          ? 'the new snapshot is loaded first; daily files dated on or before its date are then skipped (already in it)'
          : null,
    };
  } finally {
    await source.close();
  }
}
