// Match jobs as the API shows them, and their reads and changes (docs/matching.md, "Jobs"). The rows and their
// results are in match_job_rows; the worker's side is in runner.ts and chunk.ts.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { cancelOpen, workspacePage } from '../jobs/work-table.js';

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/** The fields a row may carry, and so the columns a job's mapping may name. */
export const MATCH_FIELDS = [
  'name',
  'city',
  'zip',
  'address',
  'officer',
  'entity_type',
  'document_number',
  'reference',
] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

export interface MatchJob {
  readonly id: string;
  readonly status: (typeof JOB_STATUSES)[number];
  readonly algorithm: string;
  readonly file_name: string | null;
  readonly format: 'csv' | 'jsonl';
  readonly columns: Partial<Record<MatchField, string>>;
  readonly total_rows: number;
  readonly done_rows: number;
  readonly matched_rows: number;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
}

export const newJobId = (): string => `mj_${randomBytes(12).toString('hex')}`;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

export const JOB_COLUMNS = `id, status, algorithm, file_name, format, columns, total_rows, done_rows, matched_rows,
  CASE WHEN error_code IS NULL THEN NULL ELSE jsonb_build_object('code', error_code, 'message', error) END AS error,
  ${iso('created_at')} AS created_at, ${iso('started_at')} AS started_at, ${iso('finished_at')} AS finished_at`;

export async function getJob(pool: pg.Pool, workspace: string, id: string): Promise<MatchJob | null> {
  const { rows } = await pool.query<MatchJob>(
    `SELECT ${JOB_COLUMNS} FROM match_jobs WHERE workspace_id = $1 AND id = $2`,
    [workspace, id],
  );
  return rows[0] ?? null;
}

/** A page of the workspace's jobs, newest first, and how many it has. */
export async function listJobs(
  pool: pg.Pool,
  workspace: string,
  page: { limit: number; offset: number },
): Promise<{ jobs: MatchJob[]; total: number }> {
  const { rows, total } = await workspacePage<MatchJob>(pool, 'match_jobs', JOB_COLUMNS, workspace, page);
  return { jobs: rows, total };
}

/**
 * Cancels a queued or running job: its worker stops at its next chunk; the rows done stay done (and charged),
 * their results readable. Null when the workspace has no such job; a finished job is answered as it is.
 */
export async function cancelJob(pool: pg.Pool, workspace: string, id: string, now: Date): Promise<MatchJob | null> {
  await cancelOpen(pool, 'match_jobs', workspace, id, now);
  return getJob(pool, workspace, id);
}
