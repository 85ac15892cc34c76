// Checkouts of credit packs and of plans: started for a workspace, fulfilled when the provider reports
// the payment (the local page's button and Stripe's webhook call the same function), once per
// checkout; packs refunded within the pack rules.
import { recordAudit, SYSTEM } from '../accounts/audit.js';
import type pg from 'pg';
import { base62 } from '../accounts/keys.js';
import { PACKS, REFUND_DAYS, REFUND_MAX_USED_PERCENT, type PackSlug, type PlanSlug } from '../accounts/catalog.js';
import { addPack, isPackSlug } from '../accounts/packs.js';
import { writeLedger } from '../accounts/workspaces.js';
import { inTransaction } from '../db/pool.js';
import { CURRENCY } from '../accounts/catalog.js';
import { creditNoteForRefund, receiptForCheckout } from './document-sources.js';
import { BillingError } from './errors.js';
import { applyPlanChange, type ChangeKind } from './plan-change.js';
import type { PaymentProvider, ProviderName } from './provider.js';
import { iso } from './sql.js';

/** A billing rule refused the operation; the message says which and why. */

/** An open checkout can be completed on the local page this long (as long as a Stripe session lasts). */
const CHECKOUT_TTL_MS = 24 * 60 * 60 * 1000;

export interface Checkout {
  id: string;
  workspace_id: string;
  /** A credit pack, or a plan (subscribe or upgrade: plan-change.ts). */
  kind: 'pack' | 'plan';
  /** The pack's slug, or the plan's. */
  slug: PackSlug | PlanSlug;
  credits: number;
  amount_cents: number;
  currency: string;
  provider: ProviderName;
  status: 'open' | 'paid' | 'refunded';
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  pack_id: number | null;
  refunded_at: string | null;
}

type Db = pg.Pool | pg.PoolClient;

const COLUMNS = `id, workspace_id, kind, slug, credits, amount_cents, currency, provider, status,
  ${iso('created_at')} AS created_at, ${iso('expires_at')} AS expires_at, ${iso('paid_at')} AS paid_at, pack_id,
  ${iso('refunded_at')} AS refunded_at`;

/** Checkout ids are capabilities (whoever holds one may open and, locally, complete it): 190 random bits. */
export const newCheckoutId = (): string => `chk_${base62(32)}`;
export const isCheckoutId = (s: string): boolean => /^chk_[0-9A-Za-z]{32}$/.test(s);

/** Starts a checkout of a pack for a workspace at the provider and records it; returns where the buyer pays. */
export async function startCheckout(
  pool: pg.Pool,
  provider: PaymentProvider,
  workspaceId: string,
  slug: PackSlug,
  now: Date,
): Promise<{ id: string; url: string }> {
  const { rows } = await pool.query<{ stripe_customer_id: string | null }>(
    'SELECT stripe_customer_id FROM workspaces WHERE id = $1',
    [workspaceId],
  );
  if (!rows[0]) throw new BillingError(`no workspace ${workspaceId}`);
  const id = newCheckoutId();
  const { credits, priceCents } = PACKS[slug];
  const { url, providerRef } = await provider.startCheckout({
    id,
    workspaceId,
    kind: 'pack',
    slug,
    credits,
    amountCents: priceCents,
    currency: CURRENCY,
    customer: rows[0].stripe_customer_id,
  });
  await recordCheckout(
    pool,
    { id, workspaceId, kind: 'pack', slug, credits, amountCents: priceCents },
    provider,
    providerRef,
    now,
  );
  return { id, url };
}

/** Records a checkout the provider has opened. */
export async function recordCheckout(
  pool: pg.Pool,
  c: { id: string; workspaceId: string; kind: 'pack' | 'plan'; slug: string; credits: number; amountCents: number },
  provider: PaymentProvider,
  providerRef: string | null,
  now: Date,
): Promise<void> {
  await pool.query(
    `INSERT INTO checkouts (id, workspace_id, kind, slug, credits, amount_cents, currency, provider, provider_ref,
                            created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      c.id,
      c.workspaceId,
      c.kind,
      c.slug,
      c.credits,
      c.amountCents,
      CURRENCY,
      provider.name,
      providerRef,
      now,
      new Date(now.getTime() + CHECKOUT_TTL_MS),
    ],
  );
}

export async function getCheckout(db: Db, id: string): Promise<Checkout | null> {
  const { rows } = await db.query<Checkout>(`SELECT ${COLUMNS} FROM checkouts WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** A checkout with what its page shows besides: the workspace's name, and whether it expired (at `now`). */
export async function checkoutView(
  pool: pg.Pool,
  id: string,
  now: Date,
): Promise<{ checkout: Checkout; workspaceName: string; expired: boolean } | null> {
  const { rows } = await pool.query<Checkout & { workspace_name: string; expired: boolean }>(
    `SELECT ${COLUMNS}, (SELECT name FROM workspaces w WHERE w.id = workspace_id) AS workspace_name,
            expires_at <= $2 AS expired
     FROM checkouts WHERE id = $1`,
    [id, now],
  );
  const r = rows[0];
  if (!r) return null;
  const { workspace_name, expired, ...checkout } = r;
  return { checkout, workspaceName: workspace_name, expired };
}

export async function listCheckouts(pool: pg.Pool, workspaceId: string): Promise<Checkout[]> {
  const { rows } = await pool.query<Checkout>(
    `SELECT ${COLUMNS} FROM checkouts WHERE workspace_id = $1 ORDER BY created_at, id`,
    [workspaceId],
  );
  return rows;
}

export interface Fulfilment {
  readonly checkout: Checkout;
  /** True for the one report that granted the pack; false for every repeat. */
  readonly granted: boolean;
}

/** What the provider says about the payment. */
export interface Payment {
  /** The processor's payment (to refund it). */
  readonly paymentRef?: string | null;
  /** The processor's customer (remembered for the workspace's next checkouts and invoices). */
  readonly customer?: string | null;
  /** A plan checkout at Stripe: the subscription it created. */
  readonly subscription?: string | null;
}

/**
 * The one fulfilment path: the checkout (found by our id or the provider's) is paid, and its pack
 * granted with its ledger entry, in one transaction under the checkout's row lock, so however
 * often or concurrently a payment is reported the pack is granted once. Null: no such checkout.
 */
export async function fulfilCheckout(
  pool: pg.Pool,
  ref: { id: string } | { providerRef: string },
  at: Date,
  payment: Payment = {},
): Promise<Fulfilment | null> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<Checkout>(
      `SELECT ${COLUMNS} FROM checkouts WHERE ${'id' in ref ? 'id' : 'provider_ref'} = $1 FOR UPDATE`,
      ['id' in ref ? ref.id : ref.providerRef],
    );
    const checkout = rows[0];
    if (!checkout) return null;
    if (checkout.status !== 'open') return { checkout, granted: false };
    // The payment's confirmation makes the change, whoever opened the checkout.
    const paid = SYSTEM;
    let packId: number | null = null;
    let change: ChangeKind | null = null;
    if (checkout.kind === 'plan') {
      const sub = payment.subscription
        ? { subscriptionId: payment.subscription, customer: payment.customer ?? null }
        : null;
      change = (await applyPlanChange(client, checkout.workspace_id, checkout.slug as PlanSlug, at, sub, paid)).kind;
    } else {
      if (!isPackSlug(checkout.slug))
        throw new Error(`checkout ${checkout.id} is for an unknown pack ${String(checkout.slug)}`);
      const pack = await addPack(client, checkout.workspace_id, checkout.slug, at, checkout.id);
      if (!pack) throw new Error(`checkout ${checkout.id} is open but a pack was already granted for it`);
      packId = pack.id;
      await recordAudit(client, {
        workspaceId: checkout.workspace_id,
        actor: paid,
        action: 'billing.pack_bought',
        target: checkout.slug,
        detail: `checkout ${checkout.id}`,
        at,
      });
    }
    await client.query(
      `UPDATE checkouts SET status = 'paid', paid_at = $2, pack_id = $3, payment_ref = $4 WHERE id = $1`,
      [checkout.id, at, packId, payment.paymentRef ?? null],
    );
    await receiptForCheckout(client, checkout, at, change);
    if (payment.customer) {
      await client.query('UPDATE workspaces SET stripe_customer_id = $2 WHERE id = $1 AND stripe_customer_id IS NULL', [
        checkout.workspace_id,
        payment.customer,
      ]);
    }
    return { checkout: (await getCheckout(client, checkout.id))!, granted: true };
  });
}

export interface Refund {
  checkout: Checkout;
  /** The pack's unused credits, taken back (ledger entry `pack_refund`). */
  credits_removed: number;
  credits_used: number;
  amount_cents: number;
  /** The processor's refund (null: a local checkout, no money moved). */
  refund_ref: string | null;
}

/**
 * Refunds a pack bought within the last 14 days of which at most 10% is used: the money back at the
 * processor, the unused credits out of the ledger, the pack closed. Anything else is refused with
 * the reason. The pack's row is locked while deciding, so no request spends from it meanwhile.
 */
export async function refundCheckout(pool: pg.Pool, provider: PaymentProvider, id: string, now: Date): Promise<Refund> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<Checkout & { payment_ref: string | null; too_late: boolean }>(
      `SELECT ${COLUMNS}, payment_ref, paid_at + make_interval(days => $3) <= $2 AS too_late
       FROM checkouts WHERE id = $1 FOR UPDATE`,
      [id, now, REFUND_DAYS],
    );
    const c = rows[0];
    if (!c) throw new BillingError(`no checkout ${id}`);
    if (c.kind === 'plan')
      throw new BillingError(`checkout ${id} paid for a plan: subscription payments are not refunded`);
    if (c.status === 'open') throw new BillingError(`checkout ${id} was never paid: there is nothing to refund`);
    if (c.status === 'refunded') throw new BillingError(`checkout ${id} was already refunded at ${c.refunded_at}`);
    if (c.too_late)
      throw new BillingError(
        `checkout ${id} was paid at ${c.paid_at}: packs are refundable within ${REFUND_DAYS} days of purchase`,
      );
    const { rows: packs } = await client.query<{
      id: number;
      credits: number;
      remaining: number;
      closed_reason: string | null;
    }>('SELECT id, credits, remaining, closed_reason FROM credit_packs WHERE id = $1 FOR UPDATE', [c.pack_id]);
    const pack = packs[0]!;
    if (pack.closed_reason) throw new BillingError(`the pack of checkout ${id} is closed (${pack.closed_reason})`);
    const used = pack.credits - pack.remaining;
    if (used * 100 > pack.credits * REFUND_MAX_USED_PERCENT) {
      throw new BillingError(
        `${used} of the pack's ${pack.credits} credits are used (${((used * 100) / pack.credits).toFixed(1)}%): ` +
          `packs are refundable only while no more than ${REFUND_MAX_USED_PERCENT}% is used`,
      );
    }
    let refundRef: string | null = null;
    if (c.provider !== 'local') {
      if (provider.name !== c.provider)
        throw new BillingError(`checkout ${id} was paid through ${c.provider}; configure that provider to refund it`);
      refundRef = await provider.refund({ id, paymentRef: c.payment_ref, amountCents: c.amount_cents });
    }
    if (pack.remaining > 0) {
      await writeLedger(client, {
        workspace: c.workspace_id,
        at: now,
        kind: 'pack_refund',
        pool: 'pack',
        amount: -pack.remaining,
        packId: pack.id,
        note: `${c.slug} pack refunded, checkout ${id}`,
      });
    }
    await client.query(
      `UPDATE credit_packs SET remaining = 0, closed_at = $2, closed_reason = 'refunded' WHERE id = $1`,
      [pack.id, now],
    );
    await client.query(`UPDATE checkouts SET status = 'refunded', refunded_at = $2, refund_ref = $3 WHERE id = $1`, [
      id,
      now,
      refundRef,
    ]);
    await creditNoteForRefund(client, c, now);
    return {
      checkout: (await getCheckout(client, id))!,
      credits_removed: pack.remaining,
      credits_used: used,
      amount_cents: c.amount_cents,
      refund_ref: refundRef,
    };
  });
}
