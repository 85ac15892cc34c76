// One chunk of a job's rows made final (docs/matching.md, "Jobs"): in one transaction, the job still this worker's
// and where the chunk begins, a credit per row taken through the gate's own function (the same pools, order and
// refusals as a request's), the results written and the progress moved. Killed before the commit, the chunk is the
// next worker's, uncharged; after it, done: no row is charged twice.
import type pg from 'pg';
import { chargeBatch, Unpaid } from '../accounts/batch-charge.js';
import { inTransaction } from '../db/pool.js';

export interface ChunkResult {
  readonly rowNo: number;
  readonly result: Record<string, unknown>;
  readonly matched: boolean;
  /** False for a row answered without a match being tried to the end (its search timed out): it costs nothing. */
  readonly charged: boolean;
}

/** What became of a chunk: done; the job is no longer this worker's (cancelled, taken); or the balance is short. */
export type ChunkOutcome =
  { readonly kind: 'done' } | { readonly kind: 'stopped' } | { readonly kind: 'unpaid'; readonly outcome: string };

/** The ledger entries' request id for a row: which job and row each credit paid for. */
const rowCharge = (job: string, row: number): string => `${job}:${row}`;

export async function commitChunk(
  pool: pg.Pool,
  job: { readonly id: string; readonly workspace: string; readonly keyId: string | null },
  worker: number,
  from: number,
  results: readonly ChunkResult[],
  now: Date,
): Promise<ChunkOutcome> {
  return inTransaction<ChunkOutcome>(pool, async (client) => {
    const { rows } = await client.query<{ ok: boolean }>(
      `SELECT status = 'running' AND claimed_by = $2 AND done_rows = $3 AS ok FROM match_jobs WHERE id = $1 FOR UPDATE`,
      [job.id, worker, from],
    );
    if (!rows[0]?.ok) return { kind: 'stopped' };
    const n = results.length;
    const who = { workspace: job.workspace, keyId: job.keyId };
    await chargeBatch(
      client,
      who,
      results.filter((r) => r.charged).map((r) => rowCharge(job.id, r.rowNo)),
      now,
    );
    await client.query(
      `UPDATE match_job_rows r SET result = x.result
       FROM unnest($2::int[], $3::jsonb[]) AS x(row_no, result) WHERE r.job_id = $1 AND r.row_no = x.row_no`,
      [job.id, results.map((r) => r.rowNo), results.map((r) => JSON.stringify(r.result))],
    );
    await client.query(
      'UPDATE match_jobs SET done_rows = done_rows + $2, matched_rows = matched_rows + $3 WHERE id = $1',
      [job.id, n, results.filter((r) => r.matched).length],
    );
    return { kind: 'done' };
  }).catch((err: unknown) => {
    if (err instanceof Unpaid) return { kind: 'unpaid', outcome: err.outcome };
    throw err;
  });
}
