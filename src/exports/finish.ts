// An export's end (docs/exports.md): completed with the file's last bytes (Parquet's footer), or failed when the
// balance ran out, with the `export.completed` event for the workspace's webhook endpoints written in the same
// transaction.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { appendWorkEvent } from '../monitoring/outbox.js';

const UNPAID_MESSAGE =
  'The balance ran out: the rows written before are charged, the file is not offered. Buy credits and export again.';

/** Ends the export if it is still this worker's: `unpaid` is the gate's refusal, null for an export done. */
export async function finishExport(
  pool: pg.Pool,
  job: { readonly id: string; readonly workspace_id: string },
  worker: number,
  end: { readonly parts: number; readonly tail: Buffer },
  now: Date,
  unpaid: string | null,
): Promise<void> {
  await inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ total_rows: number; done_rows: number; credits: number; bytes: number }>(
      `UPDATE exports SET status = $3, finished_at = $4, claimed_by = NULL, next_cursor = NULL,
              parts = parts + $6, bytes = bytes + $7,
              error_code = CASE WHEN $3 = 'failed' THEN 'payment_required' END,
              error = CASE WHEN $3 = 'failed' THEN $5 END
       WHERE id = $1 AND claimed_by = $2 AND status = 'running' AND parts = $8
       RETURNING total_rows::float8 AS total_rows, done_rows::float8 AS done_rows, credits, bytes::float8 AS bytes`,
      [
        job.id,
        worker,
        unpaid === null ? 'completed' : 'failed',
        now,
        UNPAID_MESSAGE,
        end.tail.length > 0 ? 1 : 0,
        end.tail.length,
        end.parts,
      ],
    );
    const done = rows[0];
    if (!done) return;
    if (end.tail.length > 0)
      await client.query('INSERT INTO export_parts (export_id, part, data) VALUES ($1, $2, $3)', [
        job.id,
        end.parts,
        end.tail,
      ]);
    const data = { export_id: job.id, status: unpaid === null ? 'completed' : 'failed', ...done };
    await appendWorkEvent(client, job.workspace_id, 'export.completed', data);
  });
}
