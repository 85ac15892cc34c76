// GET {proxy_url}/billing/balance: the canonical balance of a workspace as one signed integer.
import type pg from 'pg';
import { TEST_KEY_MONTHLY_CREDITS } from '../accounts/catalog.js';
import { inTransaction } from '../db/pool.js';

export interface BillingBalance {
  /** monthly + packs − overage not yet paid: the signed sum of the ledger's live pools. */
  balance: number;
  monthly_remaining: number;
  packs_remaining: number;
  overage_unbilled: number;
}

/**
 * The balance, read from the counters the request gate keeps equal to the ledger's sums (one row
 * each, no aggregation over the ledger): the overage pool of the ledger is minus the overage not
 * yet paid, billed or not. A cycle that has turned and packs that have expired are applied first,
 * as the next request would, so the answer never counts credits that can no longer be spent.
 */
export async function billingBalance(pool: pg.Pool, workspace: string, now: Date): Promise<BillingBalance> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT workspace_cycle($1, $2, $3)', [workspace, now, TEST_KEY_MONTHLY_CREDITS]);
    await client.query('SELECT expire_packs($1, $2)', [workspace, now]);
    const { rows } = await client.query<Omit<BillingBalance, 'balance'> & { billed_unpaid: number }>(
      `SELECT w.monthly_remaining,
         (SELECT coalesce(sum(p.remaining), 0) FROM credit_packs p
           WHERE p.workspace_id = w.id)::bigint AS packs_remaining,
         w.overage_unbilled,
         (SELECT coalesce(sum(i.credits), 0) FROM invoice_items i
           WHERE i.workspace_id = w.id AND i.paid_at IS NULL)::bigint AS billed_unpaid
       FROM workspaces w WHERE w.id = $1`,
      [workspace],
    );
    const r = rows[0]!;
    return {
      balance: r.monthly_remaining + r.packs_remaining - r.overage_unbilled - r.billed_unpaid,
      monthly_remaining: r.monthly_remaining,
      packs_remaining: r.packs_remaining,
      overage_unbilled: r.overage_unbilled,
    };
  });
}
