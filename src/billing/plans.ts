// A customer's choices of plan, as the account pages make them (docs/billing.md, "Plans"): what needs a
// payment goes through a checkout (the local page, or Stripe Checkout in subscription mode); an upgrade of
// a Stripe subscription is charged on the card Stripe holds; a downgrade waits for the next cycle; a
// cancellation ends the subscription at Stripe and here at once.
import type { Actor } from '../accounts/audit.js';
import type pg from 'pg';
import { CURRENCY, PLANS, type PlanSlug } from '../accounts/catalog.js';
import { getWorkspace } from '../accounts/workspaces.js';
import { inTransaction } from '../db/pool.js';
import { newCheckoutId, recordCheckout } from './checkouts.js';
import { BillingError } from './errors.js';
import {
  applyPlanChange,
  changeKind,
  creditsAdded,
  dueNowCents,
  nextCycleStart,
  pendingPlan,
  type ChangeKind,
} from './plan-change.js';
import type { PaymentProvider } from './provider.js';
import { sendToProcessor } from './overage.js';
import { cancelSubscription } from './subscription.js';

export type Choice = { readonly pay: string } | { readonly done: ChangeKind };

interface Billing {
  readonly stripe_subscription_id: string | null;
  readonly stripe_customer_id: string | null;
}

async function billingOf(pool: pg.Pool, workspaceId: string): Promise<Billing> {
  const { rows } = await pool.query<Billing>(
    'SELECT stripe_subscription_id, stripe_customer_id FROM workspaces WHERE id = $1',
    [workspaceId],
  );
  if (!rows[0]) throw new BillingError(`no workspace ${workspaceId}`);
  return rows[0];
}

/** Chooses `plan` for the workspace: where to pay (a checkout's address), or the change made. */
export async function choosePlan(
  pool: pg.Pool,
  provider: PaymentProvider,
  workspaceId: string,
  plan: PlanSlug,
  now: Date,
  actor: Actor,
): Promise<Choice> {
  const w = await getWorkspace(pool, workspaceId);
  const kind = changeKind({ ...w, pending_plan: await pendingPlan(pool, workspaceId) }, plan);
  if (kind === 'none') return { done: 'none' };
  const billing = await billingOf(pool, workspaceId);
  const subscription = provider.subscriptions && billing.stripe_subscription_id;
  if (kind === 'subscribe' || (kind === 'upgrade' && !subscription)) {
    const id = newCheckoutId();
    const amountCents = dueNowCents(kind, w.plan, plan, now);
    const credits = creditsAdded(kind, w.plan, plan, now);
    const { url, providerRef } = await provider.startCheckout({
      id,
      workspaceId,
      kind: 'plan',
      slug: plan,
      credits,
      amountCents,
      currency: CURRENCY,
      customer: billing.stripe_customer_id,
      monthlyCents: PLANS[plan].priceCents ?? 0,
      anchor: nextCycleStart(now),
    });
    await recordCheckout(
      pool,
      { id, workspaceId, kind: 'plan', slug: plan, credits, amountCents },
      provider,
      providerRef,
      now,
    );
    return { pay: url };
  }
  // Stripe first: if the card is refused there, nothing changes here.
  if (subscription)
    await provider.subscriptions!.changePlan(
      subscription,
      kind === 'keep' ? w.plan : plan,
      kind === 'upgrade' ? 'now' : 'next_cycle',
    );
  const change = await inTransaction(pool, (client) => applyPlanChange(client, workspaceId, plan, now, null, actor));
  return { done: change.kind };
}

/** Cancels the subscription: at Stripe (no refund of the cycle paid for), then here (final invoice of the overage). */
export async function cancelPlan(
  pool: pg.Pool,
  provider: PaymentProvider,
  workspaceId: string,
  now: Date,
  actor: Actor,
): Promise<void> {
  const billing = await billingOf(pool, workspaceId);
  if (provider.subscriptions && billing.stripe_subscription_id)
    await provider.subscriptions.cancel(billing.stripe_subscription_id);
  await cancelSubscription(pool, workspaceId, now, actor);
  // The final invoice of the overage goes to Stripe now (items already sent are not sent again).
  await sendToProcessor(pool, provider);
}

/** The customer's portal at Stripe (payment methods, invoices), or null without a Stripe customer. */
export async function portalUrl(
  pool: pg.Pool,
  provider: PaymentProvider,
  workspaceId: string,
  returnUrl: string,
): Promise<string | null> {
  const billing = await billingOf(pool, workspaceId);
  if (!provider.subscriptions || !billing.stripe_customer_id) return null;
  return provider.subscriptions.portalUrl(billing.stripe_customer_id, returnUrl);
}
