// Stripe's subscription events as plan states (docs/billing.md, "Subscriptions with Stripe"): each event
// applied once (its id recorded in stripe_events), and an event older than the newest applied to the
// workspace changes nothing (Stripe does not promise order). The workspace is the one holding the
// subscription; its row is locked while an event applies.
//
//   subscription active (or trialing)    past_due -> active: serving with overage resumes
//   subscription past_due or unpaid      active -> past_due: no overage
//   subscription canceled, or deleted    -> cancelled: final invoice of the overage, no new grant
//   invoice.payment_failed               active -> past_due
//   invoice.paid                         past_due -> active
//   subscription's metadata `plan`       applied as the customer's choice: upgrade now, downgrade at the next cycle
import { SYSTEM } from '../accounts/audit.js';
import type pg from 'pg';
import type { PlanSlug } from '../accounts/catalog.js';
import { inTransaction } from '../db/pool.js';
import { applyPlanChange, isSelfServe } from './plan-change.js';
import { cancelIn } from './subscription.js';

export type SubscriptionState = 'active' | 'past_due' | 'cancelled' | null;

/** Stripe's subscription status as the spec's state (null: none to apply, e.g. `incomplete`). */
export function stateOf(stripeStatus: string): SubscriptionState {
  if (stripeStatus === 'active' || stripeStatus === 'trialing') return 'active';
  if (stripeStatus === 'past_due' || stripeStatus === 'unpaid') return 'past_due';
  if (stripeStatus === 'canceled' || stripeStatus === 'incomplete_expired') return 'cancelled';
  return null;
}

export interface SubscriptionEvent {
  readonly id: string;
  readonly type: string;
  /** When Stripe made the event. */
  readonly created: Date;
  readonly subscription: string;
  /** The state the event reports (null: none). */
  readonly state: SubscriptionState;
  /** The plan the subscription is billed at (its metadata), when the event carries the subscription. */
  readonly plan: string | null;
}

export type Applied = 'applied' | 'duplicate' | 'stale' | 'unknown_subscription';

/** Whether Stripe's event was already applied. */
export async function seenEvent(pool: pg.Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM stripe_events WHERE id = $1', [id]);
  return rowCount === 1;
}

async function recordEvent(db: pg.Pool | pg.PoolClient, e: { id: string; type: string; created: Date }, now: Date) {
  await db.query(
    'INSERT INTO stripe_events (id, type, created, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [e.id, e.type, e.created, now],
  );
}

/** Records an event handled elsewhere (a paid checkout, overage invoices), so it is applied once. */
export const recordHandled = (pool: pg.Pool, e: { id: string; type: string; created: Date }, now: Date) =>
  recordEvent(pool, e, now);

/** Applies a subscription or invoice event to the workspace holding the subscription. */
export async function applySubscriptionEvent(pool: pg.Pool, e: SubscriptionEvent, now: Date): Promise<Applied> {
  return inTransaction(pool, async (client) => {
    if ((await client.query('SELECT 1 FROM stripe_events WHERE id = $1', [e.id])).rowCount) return 'duplicate';
    const { rows } = await client.query<{
      id: string;
      subscription_status: 'active' | 'past_due' | 'cancelled';
      stripe_synced_at: Date | null;
    }>(
      `SELECT id, subscription_status, stripe_synced_at FROM workspaces WHERE stripe_subscription_id = $1 FOR UPDATE`,
      [e.subscription],
    );
    const w = rows[0];
    if (!w) {
      await recordEvent(client, e, now);
      return 'unknown_subscription';
    }
    if (w.stripe_synced_at && e.created < w.stripe_synced_at) {
      await recordEvent(client, e, now);
      return 'stale';
    }
    if (w.subscription_status !== 'cancelled') {
      if (e.state === 'cancelled') await cancelIn(client, w.id, now, SYSTEM);
      else {
        if (e.state && e.state !== w.subscription_status)
          await client.query('UPDATE workspaces SET subscription_status = $2 WHERE id = $1', [w.id, e.state]);
        if (isSelfServe(e.plan)) await applyPlanChange(client, w.id, e.plan as PlanSlug, now, null, SYSTEM);
      }
    }
    await client.query('UPDATE workspaces SET stripe_synced_at = $2 WHERE id = $1', [w.id, e.created]);
    await recordEvent(client, e, now);
    return 'applied';
  });
}
