// One chunk of a job's rows made final (docs/matching.md, "Jobs"): in one transaction, the job still this worker's
// and where the chunk begins, a credit per row taken through the gate's own function (the same pools, order and
// refusals as a request's), the results written and the progress moved. Killed before the commit, the chunk is the
// next worker's, uncharged; after it, done: no row is charged twice.
import type pg from 'pg';
import { TEST_KEY_MONTHLY_CREDITS, TRIAL_CAP, TRIAL_DAYS } from '../accounts/catalog.js';
import { inTransaction } from '../db/pool.js';

export interface ChunkResult {
  readonly rowNo: number;
  readonly result: Record<string, unknown>;
  readonly matched: boolean;
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
    const charged = await client.query<{ outcome: string; ledger_id: number | null }>(
      `SELECT g.outcome, g.ledger_id FROM api_gate_batch(NULL, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS g`,
      [
        job.workspace,
        results.map(() => 'rest'),
        results.map(() => true),
        results.map(() => false),
        results.map(() => false),
        results.map(() => now),
        results.map((r) => rowCharge(job.id, r.rowNo)),
        TRIAL_DAYS,
        TRIAL_CAP,
        TEST_KEY_MONTHLY_CREDITS,
      ],
    );
    const refused = charged.rows.find((r) => r.outcome !== 'ok');
    // Thrown to roll the chunk back whole: none of its credits is taken.
    if (refused) throw new Unpaid(refused.outcome);
    await client.query('DELETE FROM credit_reservations WHERE ledger_id = ANY($1::bigint[])', [
      charged.rows.map((r) => r.ledger_id),
    ]);
    await client.query(
      `UPDATE match_job_rows r SET result = x.result
       FROM unnest($2::int[], $3::jsonb[]) AS x(row_no, result) WHERE r.job_id = $1 AND r.row_no = x.row_no`,
      [job.id, results.map((r) => r.rowNo), results.map((r) => JSON.stringify(r.result))],
    );
    await client.query(
      'UPDATE match_jobs SET done_rows = done_rows + $2, matched_rows = matched_rows + $3 WHERE id = $1',
      [job.id, n, results.filter((r) => r.matched).length],
    );
    // The workspace's and the key's usage of the day, as a request's charges are counted.
    await client.query(
      `INSERT INTO usage_days AS u (workspace_id, day, key_id, rest, mcp, requests, credits)
       VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, coalesce($3, ''), $4, 0, 0, $4)
       ON CONFLICT (workspace_id, day, key_id) DO UPDATE SET rest = u.rest + $4, credits = u.credits + $4`,
      [job.workspace, now, job.keyId, n],
    );
    return { kind: 'done' };
  }).catch((err: unknown) => {
    if (err instanceof Unpaid) return { kind: 'unpaid', outcome: err.outcome };
    throw err;
  });
}

class Unpaid extends Error {
  constructor(readonly outcome: string) {
    super(`the balance does not cover the chunk: ${outcome}`);
  }
}
