// Credits taken by background work (match jobs, exports) inside the caller's transaction: through the gate's own
// function, the same pools, order and refusals as a request's, each credit under its own request id; the day's
// usage of the workspace and key moved as a request's charges move it.
import type pg from 'pg';
import { TEST_KEY_MONTHLY_CREDITS, TRIAL_CAP, TRIAL_DAYS } from './catalog.js';

/** The gate refused a credit (its outcome: `payment_required`, ...): the caller rolls its transaction back. */
export class Unpaid extends Error {
  constructor(readonly outcome: string) {
    super(`the balance does not cover the work: ${outcome}`);
  }
}

/** Takes one credit for each of `requestIds`, or throws Unpaid having taken none that will commit. */
export async function chargeBatch(
  client: pg.PoolClient,
  who: { readonly workspace: string; readonly keyId: string | null },
  requestIds: readonly string[],
  now: Date,
): Promise<void> {
  if (requestIds.length === 0) return;
  const charged = await client.query<{ outcome: string; ledger_id: number | null }>(
    `SELECT g.outcome, g.ledger_id FROM api_gate_batch(NULL, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS g`,
    [
      who.workspace,
      requestIds.map(() => 'rest'),
      requestIds.map(() => true),
      requestIds.map(() => false),
      requestIds.map(() => false),
      requestIds.map(() => now),
      requestIds,
      TRIAL_DAYS,
      TRIAL_CAP,
      TEST_KEY_MONTHLY_CREDITS,
    ],
  );
  const refused = charged.rows.find((r) => r.outcome !== 'ok');
  if (refused) throw new Unpaid(refused.outcome);
  await client.query('DELETE FROM credit_reservations WHERE ledger_id = ANY($1::bigint[])', [
    charged.rows.map((r) => r.ledger_id),
  ]);
  await client.query(
    `INSERT INTO usage_days AS u (workspace_id, day, key_id, rest, mcp, requests, credits)
     VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, coalesce($3, ''), $4, 0, 0, $4)
     ON CONFLICT (workspace_id, day, key_id) DO UPDATE SET rest = u.rest + $4, credits = u.credits + $4`,
    [who.workspace, now, who.keyId, requestIds.length],
  );
}
