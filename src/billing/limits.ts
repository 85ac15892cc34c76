// The owner's limits on a workspace's money (docs/billing.md, "Low-balance alerts", "Spending cap"): the
// balance in credits at which a mail is sent, and the most overage a UTC month may cost. The cap is
// enforced by the request gate itself (api_gate, 013_keys_usage_audit.sql), in the update that reserves
// an overage credit; this file only sets and reads it.
import type pg from 'pg';
import { z } from 'zod';

export interface Limits {
  /** Credits; null: no alert. */
  low_balance_threshold: number | null;
  /** Whether the mail of the current crossing was sent (re-armed once the balance is above again). */
  low_balance_alerted: boolean;
  /** Cents a month; null: no cap. */
  overage_cap_cents: number | null;
  /** This month's overage as its daily items price it, in cents (what the cap is compared with). */
  overage_this_month_cents: number;
}

/** A threshold or a cap past these is a typing mistake, not a choice (2^31: far above any plan's grant). */
const THRESHOLD_MAX = 2_000_000_000;
const CAP_MAX_DOLLARS = 1_000_000;

const THRESHOLD_ERROR = 'Enter a whole number of credits, such as 500, or leave it empty.';
const CAP_ERROR = 'Enter an amount in dollars, such as 50 or 12.50, or leave it empty.';

/** An empty field turns the alert off. */
export const ThresholdInput = z.strictObject({
  threshold: z
    .string({ error: THRESHOLD_ERROR })
    .trim()
    .regex(/^(\d{1,10})?$/, { error: THRESHOLD_ERROR })
    .transform((v) => (v === '' ? null : Number(v)))
    .refine((n) => n === null || n <= THRESHOLD_MAX, {
      error: `At most ${THRESHOLD_MAX.toLocaleString('en-US')} credits.`,
    }),
});

/** Dollars with at most two decimals, read as cents without floating point; empty turns the cap off. */
export const CapInput = z.strictObject({
  cap: z
    .string({ error: CAP_ERROR })
    .trim()
    .regex(/^(\d{1,7}(\.\d{1,2})?)?$/, { error: CAP_ERROR })
    .transform((v) => {
      if (v === '') return null;
      const [dollars, cents = ''] = v.split('.');
      return Number(dollars) * 100 + Number(cents.padEnd(2, '0'));
    })
    .refine((c) => c === null || c <= CAP_MAX_DOLLARS * 100, {
      error: `At most $${CAP_MAX_DOLLARS.toLocaleString('en-US')} a month.`,
    }),
});

export async function getLimits(db: pg.Pool, workspaceId: string, now: Date): Promise<Limits> {
  const { rows } = await db.query<Limits>(
    `SELECT low_balance_threshold, low_balance_alerted_at IS NOT NULL AS low_balance_alerted, overage_cap_cents,
       CASE WHEN cap_day >= month_start($2) THEN cap_spent_cents ELSE 0 END AS overage_this_month_cents
     FROM workspaces WHERE id = $1`,
    [workspaceId, now],
  );
  if (!rows[0]) throw new Error(`no workspace ${workspaceId}`);
  return rows[0];
}

/** Sets the alert's threshold (null: none); a new threshold is a new alert, armed. */
export async function setLowBalanceThreshold(db: pg.Pool, workspaceId: string, credits: number | null): Promise<void> {
  await db.query('UPDATE workspaces SET low_balance_threshold = $2, low_balance_alerted_at = NULL WHERE id = $1', [
    workspaceId,
    credits,
  ]);
}

/** Sets the monthly cap on overage (null: none); it applies to the next overage credit. */
export async function setOverageCap(db: pg.Pool, workspaceId: string, cents: number | null): Promise<void> {
  await db.query('UPDATE workspaces SET overage_cap_cents = $2 WHERE id = $1', [workspaceId, cents]);
}
