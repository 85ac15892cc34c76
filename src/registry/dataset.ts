// The dataset as the API describes it: its version, when it was last refreshed, whether that is
// recent enough to call it live, and counts stored at import time (never counted per request).
import type pg from 'pg';

/** docs/contract.md, "Operations": `live` when the last successful import is under 36 hours old, else `stale`. */
const STALE_AFTER_MS = 36 * 60 * 60 * 1000;

export type DatasetStatus = 'live' | 'stale' | 'empty';

/** A file applied since the refresh before the last successful one. */
export interface AppliedFile {
  file: string;
  kind: string;
  file_date: string | null;
}

export interface DatasetState {
  version: number;
  last_import_at: string | null;
  /** The last refresh run that succeeded, whether or not the source had anything new. */
  last_refresh_at: string | null;
  last_refresh_files: AppliedFile[];
  /** When the data was last known current: the later of the last import and the last successful refresh. */
  refreshed_at: string | null;
  snapshot_date: string | null;
  newest_file_date: string | null;
  newest_filing_date: string | null;
  /** Counted at the last full load, moved by each daily file since (null until first counted). */
  entities: number | null;
  officers: number | null;
  events: number | null;
  agents: number | null;
}

const utc = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const STATE_COLUMNS = `
  version, ${utc('last_import_at')} AS last_import_at, ${utc('last_refresh_at')} AS last_refresh_at, last_refresh_files,
  ${utc('greatest(last_import_at, last_refresh_at)')} AS refreshed_at,
  snapshot_date::text, newest_file_date::text, newest_filing_date::text, entities, officers, events, agents`;

export async function datasetState(pool: pg.Pool): Promise<DatasetState> {
  const { rows } = await pool.query<DatasetState>(`SELECT ${STATE_COLUMNS} FROM dataset_state`);
  return rows[0]!;
}

export function datasetStatus(refreshedAt: string | null, now: Date): DatasetStatus {
  if (!refreshedAt) return 'empty';
  return now.getTime() - Date.parse(refreshedAt) < STALE_AFTER_MS ? 'live' : 'stale';
}

/** The instant the dataset turned stale (36 hours after its last refresh), or null while it is live. */
export function staleSince(refreshedAt: string | null, now: Date): string | null {
  if (!refreshedAt) return null;
  const since = Date.parse(refreshedAt) + STALE_AFTER_MS;
  return since <= now.getTime() ? new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
}

export interface DatasetCounts extends DatasetState {
  entities: number;
  officers: number;
  events: number;
  agents: number;
}

/** The latest filing date the registry's own files report (future-dated filings excluded), from the date indexes. */
const NEWEST_FILING_DATE = `greatest(
  (SELECT max(filing_date) FROM registry.entities WHERE filing_date <= dataset_state.newest_file_date),
  (SELECT max(filed_date) FROM registry.events WHERE filed_date <= dataset_state.newest_file_date))`;

/**
 * Counts every table exactly (seconds on the full registry: for the end of a full load, never for the
 * request path) and stores the counts and the newest filing date where the status endpoint reads them.
 */
async function recountDataset(pool: pg.Pool): Promise<DatasetCounts> {
  const { rows } = await pool.query<DatasetCounts>(`
    UPDATE dataset_state SET
      entities = (SELECT count(*) FROM registry.entities),
      officers = (SELECT count(*) FROM registry.officers),
      events = (SELECT count(*) FROM registry.events),
      agents = (SELECT count(*) FROM registry.agents),
      newest_filing_date = ${NEWEST_FILING_DATE}
    RETURNING ${STATE_COLUMNS}`);
  return rows[0]!;
}

/** How a set of daily changes moves the stored counts. */
export interface CountMoves {
  entities: number;
  officers: number;
  events: number;
  agents: number;
}

/**
 * Moves the stored counts by a change set's difference, in its transaction, so they change with the
 * data they count (counts never taken stay null), and takes the newest filing date again.
 */
export async function moveDatasetCounts(client: pg.PoolClient, m: CountMoves): Promise<void> {
  await client.query(
    `UPDATE dataset_state SET entities = entities + $1, officers = officers + $2, events = events + $3,
       agents = agents + $4, newest_filing_date = ${NEWEST_FILING_DATE}`,
    [m.entities, m.officers, m.events, m.agents],
  );
}

/**
 * The dataset after an import: daily changes have moved the counts already (recounting the full
 * registry took 20 s at 12.6 million entities); a full load, or counts never taken, is counted whole.
 */
export async function datasetAfterImport(pool: pg.Pool, fullLoad: boolean): Promise<DatasetCounts> {
  const state = await datasetState(pool);
  const counted = [state.entities, state.officers, state.events, state.agents].every((n) => n !== null);
  return !fullLoad && counted ? (state as DatasetCounts) : recountDataset(pool);
}
