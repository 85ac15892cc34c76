// A match job created from its uploaded file (docs/matching.md, "Jobs"): the job and its rows in one transaction,
// or, under an Idempotency-Key already used, the job it created.
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { JOB_COLUMNS, newJobId, type MatchJob } from './jobs.js';
import { writeRows, type Mapping } from './upload.js';

export interface NewJob {
  readonly workspace: string;
  readonly keyId: string | null;
  readonly userId: string | null;
  readonly algorithm: string;
  readonly format: 'csv' | 'jsonl';
  readonly fileName: string | null;
  readonly mapping: Mapping;
  readonly idempotencyKey: string | null;
}

/** The job the workspace created under `key`, if any. */
export async function jobByIdempotencyKey(pool: pg.Pool, workspace: string, key: string): Promise<MatchJob | null> {
  const { rows } = await pool.query<MatchJob>(
    `SELECT ${JOB_COLUMNS} FROM match_jobs WHERE workspace_id = $1 AND idempotency_key = $2`,
    [workspace, key],
  );
  return rows[0] ?? null;
}

/** Creates the job with the rows of `body`; answers it, and whether it is new (not one made under the same key). */
export async function createJob(
  pool: pg.Pool,
  job: NewJob,
  body: Readable,
  now: Date,
): Promise<{ job: MatchJob; created: boolean }> {
  const id = newJobId();
  const made = await inTransaction(pool, async (client) => {
    const { rowCount } = await client.query(
      `INSERT INTO match_jobs (id, workspace_id, key_id, user_id, created_at, status, algorithm, file_name, format,
                               columns, total_rows, idempotency_key)
       VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, '{}', 0, $9)
       ON CONFLICT (workspace_id, idempotency_key) DO NOTHING`,
      [id, job.workspace, job.keyId, job.userId, now, job.algorithm, job.fileName, job.format, job.idempotencyKey],
    );
    if (rowCount === 0) return false;
    const { rows, mapping } = await writeRows(client, id, body, job.format, job.mapping);
    await client.query('UPDATE match_jobs SET total_rows = $2, columns = $3 WHERE id = $1', [
      id,
      rows,
      JSON.stringify(mapping),
    ]);
    return true;
  });
  if (!made) {
    body.resume();
    return { job: (await jobByIdempotencyKey(pool, job.workspace, job.idempotencyKey!))!, created: false };
  }
  const { rows } = await pool.query<MatchJob>(`SELECT ${JOB_COLUMNS} FROM match_jobs WHERE id = $1`, [id]);
  return { job: rows[0]!, created: true };
}
