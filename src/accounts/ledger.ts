// Balances read from the ledger, and the check that the fast counters equal the ledger's sums.
import type pg from 'pg';

interface Balances {
  /** Signed sum of every live entry (monthly, packs, overage): negative while overage is unpaid. */
  balance: number;
  monthly_remaining: number;
  packs_remaining: number;
  overage_unbilled: number;
  test_remaining: number;
}

export interface LedgerCheck extends Balances {
  /** True when every counter equals the ledger's sum for its pool. */
  consistent: boolean;
  counters: { monthly_remaining: number; packs_remaining: number; overage_unbilled: number; test_remaining: number };
  /** Overage from the ledger (used, net of releases; paid) beside what the invoices hold (billed; paid). */
  overage: { accrued: number; billed: number; paid_in_ledger: number; paid_on_invoices: number };
}

type Db = pg.Pool | pg.PoolClient;

/** The balances of a workspace recomputed from its ledger, beside the counters the gate uses. */
export async function ledgerCheck(db: Db, workspace: string): Promise<LedgerCheck> {
  const { rows } = await db.query<Omit<Balances, 'overage_unbilled'> & { accrued: number; paid_in_ledger: number }>(
    `SELECT
       coalesce(sum(amount) FILTER (WHERE pool IN ('monthly', 'pack', 'overage')), 0)::bigint AS balance,
       coalesce(sum(amount) FILTER (WHERE pool = 'monthly'), 0)::bigint AS monthly_remaining,
       coalesce(sum(amount) FILTER (WHERE pool = 'pack'), 0)::bigint AS packs_remaining,
       coalesce(sum(amount) FILTER (WHERE pool = 'test'), 0)::bigint AS test_remaining,
       coalesce(-sum(amount) FILTER (WHERE pool = 'overage' AND kind IN ('overage', 'refund')), 0)::bigint AS accrued,
       coalesce(sum(amount) FILTER (WHERE pool = 'overage' AND kind = 'overage_payment'), 0)::bigint AS paid_in_ledger
     FROM credit_ledger WHERE workspace_id = $1`,
    [workspace],
  );
  const { rows: counters } = await db.query<LedgerCheck['counters'] & { billed: number; paid_on_invoices: number }>(
    `SELECT w.monthly_remaining, w.overage_unbilled, w.test_remaining,
       (SELECT coalesce(sum(remaining), 0)::bigint FROM credit_packs p WHERE p.workspace_id = w.id) AS packs_remaining,
       (SELECT coalesce(sum(credits), 0)::bigint FROM invoice_items i WHERE i.workspace_id = w.id) AS billed,
       (SELECT coalesce(sum(credits) FILTER (WHERE paid_at IS NOT NULL), 0)::bigint
          FROM invoice_items i WHERE i.workspace_id = w.id) AS paid_on_invoices
     FROM workspaces w WHERE w.id = $1`,
    [workspace],
  );
  const { accrued, paid_in_ledger, ...fromLedger } = rows[0]!;
  const { billed, paid_on_invoices, ...c } = counters[0]!;
  return {
    ...fromLedger,
    // Billed overage stays in the ledger until paid; what is still to bill is the counter's.
    overage_unbilled: c.overage_unbilled,
    counters: c,
    overage: { accrued, billed, paid_in_ledger, paid_on_invoices },
    consistent:
      c.monthly_remaining === fromLedger.monthly_remaining &&
      c.packs_remaining === fromLedger.packs_remaining &&
      c.test_remaining === fromLedger.test_remaining &&
      c.overage_unbilled === accrued - billed &&
      paid_in_ledger === paid_on_invoices,
  };
}
