// The dataset as the API describes it: its version, when it was last refreshed, and whether that
// is recent enough to call it live.
import type pg from 'pg';

/** decisions.md: `live` when the last successful import is under 36 hours old, else `stale`. */
export const STALE_AFTER_MS = 36 * 60 * 60 * 1000;

export type DatasetStatus = 'live' | 'stale' | 'empty';

export interface DatasetState {
  version: number;
  last_import_at: string | null;
  snapshot_date: string | null;
  newest_file_date: string | null;
}

export async function datasetState(pool: pg.Pool): Promise<DatasetState> {
  const { rows } = await pool.query<DatasetState>(`
    SELECT version, to_char(last_import_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last_import_at,
           snapshot_date::text, newest_file_date::text
    FROM dataset_state`);
  return rows[0]!;
}

export function datasetStatus(lastSuccessAt: string | null, now: Date): DatasetStatus {
  if (!lastSuccessAt) return 'empty';
  return now.getTime() - Date.parse(lastSuccessAt) < STALE_AFTER_MS ? 'live' : 'stale';
}

export interface DatasetCounts extends DatasetState {
  entities: number;
  officers: number;
  events: number;
  agents: number;
}

/** Exact row counts (an import summary must be exact; this is not for the request path). */
export async function datasetCounts(pool: pg.Pool): Promise<DatasetCounts> {
  const { rows } = await pool.query<Omit<DatasetCounts, keyof DatasetState>>(`
    SELECT (SELECT count(*) FROM registry.entities) AS entities,
           (SELECT count(*) FROM registry.officers) AS officers,
           (SELECT count(*) FROM registry.events) AS events,
           (SELECT count(*) FROM registry.agents) AS agents`);
  return { ...(await datasetState(pool)), ...rows[0]! };
}
