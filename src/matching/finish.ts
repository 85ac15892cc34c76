// A job's end (docs/matching.md, "Jobs"): completed, or failed when the balance ran out, with the
// `match_job.completed` event for the workspace's webhook endpoints written in the same transaction.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { appendWorkEvent } from '../monitoring/outbox.js';

/** Why the balance stopped a job, as the gate refused its chunk. */
const UNPAID_MESSAGE =
  'The balance ran out: the rows matched before are in the results (and charged); the others were not matched. ' +
  'Buy credits and start a new job with the rest.';

/** Ends the job if it is still this worker's: `unpaid` is the gate's refusal, null for a job done. */
export async function finishJob(
  pool: pg.Pool,
  job: { readonly id: string; readonly workspace_id: string },
  worker: number,
  now: Date,
  unpaid: string | null,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ total_rows: number; done_rows: number; matched_rows: number }>(
      `UPDATE match_jobs SET status = $3, finished_at = $4, claimed_by = NULL,
              error_code = CASE WHEN $3 = 'failed' THEN 'payment_required' END,
              error = CASE WHEN $3 = 'failed' THEN $5 END
       WHERE id = $1 AND claimed_by = $2 AND status = 'running'
       RETURNING total_rows, done_rows, matched_rows`,
      [job.id, worker, unpaid === null ? 'completed' : 'failed', now, UNPAID_MESSAGE],
    );
    const done = rows[0];
    if (!done) return;
    const data = { job_id: job.id, status: unpaid === null ? 'completed' : 'failed', ...done };
    await appendWorkEvent(client, job.workspace_id, 'match_job.completed', data);
  });
}
