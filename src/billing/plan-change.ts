// Changing plans (docs/billing.md, "Plans"): the rules of a mid-month subscription, upgrade, downgrade
// and what each does to this month's credits, in one place for the web app, the local checkout and
// Stripe's events.
//
// - Subscribing (from the trial, or after a cancellation) takes effect at once: the credits left are kept
//   and the plan's grant is added in proportion to what is left of the UTC month, as its price is.
// - Upgrading takes effect at once: the new plan's features and limit, and the month's credits topped up
//   by the difference of the two grants in proportion to what is left of the month (the price difference
//   is charged for the same part of the month). Credits already spent count against the new plan, and
//   an upgrade late in the month costs and grants little, so no one buys a month of credits for a day's
//   price difference.
// - Downgrading waits for the next cycle (`pending_plan`): this month's credits and features were paid for.
//   Choosing the current plan again keeps it (the downgrade is dropped).
import type pg from 'pg';
import { PLANS, TEST_KEY_MONTHLY_CREDITS, type PlanSlug } from '../accounts/catalog.js';
import { recordAudit, type Actor } from '../accounts/audit.js';
import { getWorkspace, writeLedger, type Workspace } from '../accounts/workspaces.js';
import { BillingError } from './errors.js';

/** Plans a customer picks without talking to us (Enterprise is priced by contract). */
export const SELF_SERVE_PLANS = ['mcp_starter', 'developer', 'pro', 'growth', 'lead_feed'] as const;
export type SelfServePlan = (typeof SELF_SERVE_PLANS)[number];
export const isSelfServe = (s: unknown): s is SelfServePlan => (SELF_SERVE_PLANS as readonly unknown[]).includes(s);

export type ChangeKind = 'subscribe' | 'upgrade' | 'downgrade' | 'keep' | 'none';

/** What choosing `to` would be for this workspace now. */
export function changeKind(
  w: Pick<Workspace, 'plan' | 'subscription_status'> & { pending_plan: string | null },
  to: PlanSlug,
): ChangeKind {
  if (w.plan === 'free_trial' || w.subscription_status === 'cancelled') return 'subscribe';
  if (to === w.plan) return w.pending_plan ? 'keep' : 'none';
  const price = (p: PlanSlug) => PLANS[p].priceCents ?? Number.MAX_SAFE_INTEGER;
  return price(to) > price(w.plan) ? 'upgrade' : 'downgrade';
}

const monthStart = (d: Date, add = 0): number => Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1);

/** The share of the UTC month still to come at `now` (1 at 00:00 on the 1st). */
export function monthLeft(now: Date): number {
  const start = monthStart(now);
  const end = monthStart(now, 1);
  return (end - now.getTime()) / (end - start);
}

/** 00:00 UTC on the 1st of next month: where a new subscription's billing cycle is anchored. */
export const nextCycleStart = (now: Date): Date => new Date(monthStart(now, 1));

/** Credits a change adds to this month's pool at `now`. */
export function creditsAdded(kind: ChangeKind, from: PlanSlug, to: PlanSlug, now: Date): number {
  if (kind === 'subscribe') return Math.floor(PLANS[to].monthlyCredits * monthLeft(now));
  if (kind === 'upgrade')
    return Math.max(0, Math.floor((PLANS[to].monthlyCredits - PLANS[from].monthlyCredits) * monthLeft(now)));
  return 0;
}

/** What a change costs now, in cents: the price (or the price difference) for the rest of the month. */
export function dueNowCents(kind: ChangeKind, from: PlanSlug, to: PlanSlug, now: Date): number {
  const price = PLANS[to].priceCents ?? 0;
  if (kind === 'subscribe') return Math.max(1, Math.round(price * monthLeft(now)));
  if (kind === 'upgrade') return Math.max(1, Math.round((price - (PLANS[from].priceCents ?? 0)) * monthLeft(now)));
  return 0;
}

export interface PlanChange {
  readonly kind: ChangeKind;
  readonly credits: number;
  readonly workspace: Workspace;
}

/** The subscription at Stripe a change belongs to (recorded for the workspace), when there is one. */
export interface StripeSubscription {
  readonly subscriptionId: string;
  readonly customer: string | null;
}

/**
 * Applies the choice of `to` under the workspace's row lock, in the caller's transaction, with its ledger
 * entry. The kind is decided now, from the workspace as it stands: a repeated report changes nothing.
 */
export async function applyPlanChange(
  client: pg.PoolClient,
  workspaceId: string,
  to: PlanSlug,
  now: Date,
  stripe: StripeSubscription | null,
  actor: Actor,
): Promise<PlanChange> {
  if (!isSelfServe(to)) throw new BillingError(`the ${to} plan is not chosen here: contact us`);
  // Into this month's cycle first (it locks the row), so the change applies to this month's credits.
  await client.query('SELECT workspace_cycle($1, $2, $3)', [workspaceId, now, TEST_KEY_MONTHLY_CREDITS]);
  const { rows } = await client.query<{ pending_plan: PlanSlug | null }>(
    'SELECT pending_plan FROM workspaces WHERE id = $1 FOR UPDATE',
    [workspaceId],
  );
  if (!rows[0]) throw new BillingError(`no workspace ${workspaceId}`);
  const w = await getWorkspace(client, workspaceId);
  const kind = changeKind({ ...w, pending_plan: rows[0].pending_plan }, to);
  const credits = creditsAdded(kind, w.plan, to, now);
  if (kind === 'subscribe' || kind === 'upgrade') {
    await writeLedger(client, {
      workspace: workspaceId,
      at: now,
      kind: 'monthly_grant',
      pool: 'monthly',
      amount: credits,
      note:
        kind === 'subscribe'
          ? `subscribed to ${to}: the rest of the month's grant`
          : `upgrade from ${w.plan} to ${to}: the rest of the month's difference`,
    });
    await client.query(
      `UPDATE workspaces SET plan = $2, subscription_status = 'active', cancelled_at = NULL, pending_plan = NULL,
         monthly_remaining = monthly_remaining + $3 WHERE id = $1`,
      [workspaceId, to, credits],
    );
  } else if (kind === 'downgrade' || kind === 'keep') {
    await client.query('UPDATE workspaces SET pending_plan = $2 WHERE id = $1', [
      workspaceId,
      kind === 'downgrade' ? to : null,
    ]);
  }
  if (stripe) {
    await client.query(
      `UPDATE workspaces SET stripe_subscription_id = $2, stripe_customer_id = coalesce(stripe_customer_id, $3)
       WHERE id = $1`,
      [workspaceId, stripe.subscriptionId, stripe.customer],
    );
  }
  if (kind !== 'none')
    await recordAudit(client, {
      workspaceId,
      actor,
      action: 'billing.plan_change',
      target: to,
      detail: `${kind} from ${w.plan}`,
      at: now,
    });
  return { kind, credits, workspace: await getWorkspace(client, workspaceId) };
}

/** The plan waiting for the next cycle, if any. */
export async function pendingPlan(db: pg.Pool | pg.PoolClient, workspaceId: string): Promise<PlanSlug | null> {
  const { rows } = await db.query<{ pending_plan: PlanSlug | null }>(
    'SELECT pending_plan FROM workspaces WHERE id = $1',
    [workspaceId],
  );
  return rows[0]?.pending_plan ?? null;
}
