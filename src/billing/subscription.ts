// Cancelling a subscription. It takes effect at once: overage stops accruing, everything accrued
// is billed on a final invoice issued there and then, and no new cycle brings a grant. What is
// left of the cycle already paid for, and any packs, stay spendable.
import type pg from 'pg';
import { recordAudit, type Actor } from '../accounts/audit.js';
import { getWorkspace, type Workspace } from '../accounts/workspaces.js';
import { isoDay } from '../clock.js';
import { inTransaction } from '../db/pool.js';
import { BillingError } from './errors.js';
import { billWorkspace, type BilledItem } from './overage.js';

export interface Cancellation {
  workspace: Workspace;
  /** The items put on the final invoice now. */
  items: BilledItem[];
  final_invoice: string | null;
}

export async function cancelSubscription(
  pool: pg.Pool,
  workspace: string,
  now: Date,
  actor: Actor,
): Promise<Cancellation> {
  return inTransaction(pool, (client) => cancelIn(client, workspace, now, actor));
}

/** cancelSubscription inside the caller's transaction. */
export async function cancelIn(
  client: pg.PoolClient,
  workspace: string,
  now: Date,
  actor: Actor,
): Promise<Cancellation> {
  const w = await getWorkspace(client, workspace, true);
  if (w.plan === 'free_trial')
    throw new BillingError(`workspace ${workspace} is on the free trial: there is no subscription to cancel`);
  if (w.subscription_status === 'cancelled')
    throw new BillingError(`the subscription of workspace ${workspace} is already cancelled`);
  await client.query(
    `UPDATE workspaces SET subscription_status = 'cancelled', cancelled_at = $2, pending_plan = NULL WHERE id = $1`,
    [workspace, now],
  );
  await recordAudit(client, { workspaceId: workspace, actor, action: 'billing.cancel', target: w.plan, at: now });
  const { items, finalInvoice } = await billWorkspace(client, workspace, isoDay(now), now);
  return { workspace: await getWorkspace(client, workspace), items, final_invoice: finalInvoice };
}

/** The workspace's customer at Stripe (null to forget it): where its overage is invoiced. */
export async function setProcessorCustomer(
  pool: pg.Pool,
  workspace: string,
  customer: string | null,
): Promise<Workspace> {
  await getWorkspace(pool, workspace);
  await pool.query('UPDATE workspaces SET stripe_customer_id = $2 WHERE id = $1', [workspace, customer]);
  return getWorkspace(pool, workspace);
}
