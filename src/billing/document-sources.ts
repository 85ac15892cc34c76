// What each payment's document says: the receipt of a paid checkout (a pack on either provider; a plan
// on the local one, whose payment the checkout is), the credit note of a pack refund, the invoice of
// overage kept here, and the receipt of an invoice Stripe charged (subscriptions, renewals, prorations,
// overage sent to Stripe). docs/billing.md, "Payment history".
import type pg from 'pg';
import { CURRENCY, PACKS, PACK_VALID_MONTHS, PLANS, type PackSlug, type PlanSlug } from '../accounts/catalog.js';
import { inTransaction } from '../db/pool.js';
import { issueDocument, type DocumentLine } from './documents.js';
import type { ChangeKind } from './plan-change.js';
import type { ProviderName } from './provider.js';

const n = (x: number): string => x.toLocaleString('en-US');
const one = (description: string, cents: number): DocumentLine => ({
  description,
  quantity: 1,
  unit_cents: cents,
  amount_cents: cents,
});
const monthName = (at: Date): string => at.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

export interface PaidCheckout {
  readonly id: string;
  readonly workspace_id: string;
  readonly kind: 'pack' | 'plan';
  readonly slug: string;
  readonly credits: number;
  readonly amount_cents: number;
  readonly provider: ProviderName;
}

/** The line of a paid checkout; `change`: what a plan checkout did when it was paid. */
function checkoutLine(c: PaidCheckout, at: Date, change: ChangeKind | null): DocumentLine {
  if (c.kind === 'pack') {
    const pack = PACKS[c.slug as PackSlug];
    return one(`${pack.title} credit pack: ${n(c.credits)} credits, valid ${PACK_VALID_MONTHS} months`, c.amount_cents);
  }
  const plan = PLANS[c.slug as PlanSlug].name;
  const rest = `the rest of ${monthName(at)} from ${at.toISOString().slice(0, 10)}`;
  const what =
    change === 'upgrade'
      ? `Upgrade to the ${plan} plan: the price difference for ${rest}`
      : change === 'subscribe'
        ? `${plan} plan subscription: ${rest}`
        : `${plan} plan: ${rest}`;
  return one(`${what} (${n(c.credits)} credits)`, c.amount_cents);
}

/**
 * The receipt of a checkout just paid, in the fulfilment's transaction. A plan checkout at Stripe gets
 * none here: Stripe's invoice of that payment is documented when Stripe reports it paid.
 */
export async function receiptForCheckout(
  client: pg.PoolClient,
  c: PaidCheckout,
  at: Date,
  change: ChangeKind | null,
): Promise<void> {
  if (c.kind === 'plan' && c.provider === 'stripe') return;
  await issueDocument(client, {
    workspaceId: c.workspace_id,
    kind: 'receipt',
    source: `checkout:${c.id}`,
    provider: c.provider,
    at,
    currency: CURRENCY,
    lines: [checkoutLine(c, at, change)],
  });
}

/** The credit note of a refunded pack, in the refund's transaction: the full price back. */
export async function creditNoteForRefund(client: pg.PoolClient, c: PaidCheckout, at: Date): Promise<void> {
  const pack = PACKS[c.slug as PackSlug];
  await issueDocument(client, {
    workspaceId: c.workspace_id,
    kind: 'credit_note',
    source: `refund:${c.id}`,
    provider: c.provider,
    at,
    currency: CURRENCY,
    lines: [one(`Refund of the ${pack.title} credit pack bought with checkout ${c.id}`, -c.amount_cents)],
  });
}

/**
 * The invoice of an overage invoice just issued, in the issuing transaction: for workspaces whose overage
 * stays here (no Stripe customer; otherwise its items are on Stripe's invoice, documented when paid).
 */
export async function invoiceForOverage(client: pg.PoolClient, invoiceId: string, at: Date): Promise<void> {
  const { rows } = await client.query<{ workspace_id: string; customer: string | null }>(
    `SELECT v.workspace_id, w.stripe_customer_id AS customer FROM invoices v JOIN workspaces w ON w.id = v.workspace_id
     WHERE v.id = $1`,
    [invoiceId],
  );
  if (!rows[0] || rows[0].customer) return;
  const { rows: items } = await client.query<{ day: string; credits: number; amount_cents: number }>(
    'SELECT day::text AS day, credits, amount_cents FROM invoice_items WHERE invoice_id = $1 ORDER BY day',
    [invoiceId],
  );
  if (items.length === 0) return;
  await issueDocument(client, {
    workspaceId: rows[0].workspace_id,
    kind: 'invoice',
    source: `invoice:${invoiceId}`,
    provider: 'local',
    at,
    currency: CURRENCY,
    lines: items.map((i) => one(`API overage ${i.day}: ${n(i.credits)} credits`, i.amount_cents)),
  });
}

/** An invoice Stripe charged, as its webhook carries it (lines fetched in full by the caller). */
export interface StripePaidInvoice {
  readonly id: string;
  readonly customer: string | null;
  readonly subscription: string | null;
  /** The workspace named in the subscription's metadata, when Stripe copied it onto the invoice. */
  readonly workspaceId: string | null;
  readonly currency: string;
  readonly amountPaid: number;
  readonly paidAt: Date;
  readonly lines: readonly { description: string | null; quantity: number | null; amount: number }[];
}

/**
 * The receipt of an invoice Stripe charged: its lines as Stripe priced them, and a line for what Stripe
 * applied besides (tax, discounts, the customer's credit balance), so the total is what was paid.
 */
export async function receiptForStripeInvoice(pool: pg.Pool, inv: StripePaidInvoice): Promise<boolean> {
  if (inv.amountPaid <= 0) return false;
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM workspaces WHERE id = $1 OR stripe_subscription_id = $2 OR stripe_customer_id = $3
       ORDER BY (id = $1) DESC, (stripe_subscription_id = $2) DESC LIMIT 1`,
      [inv.workspaceId, inv.subscription, inv.customer],
    );
    if (!rows[0]) return false;
    const lines: DocumentLine[] = inv.lines.map((l) => {
      const quantity = l.quantity && l.quantity > 0 ? l.quantity : 1;
      const unit = l.amount % quantity === 0 ? l.amount / quantity : l.amount;
      return {
        description: l.description ?? 'Stripe invoice line',
        quantity: unit === l.amount ? 1 : quantity,
        unit_cents: unit,
        amount_cents: l.amount,
      };
    });
    const rest = inv.amountPaid - lines.reduce((s, l) => s + l.amount_cents, 0);
    if (rest !== 0) lines.push(one('Tax, discounts and credit balance applied by Stripe', rest));
    const issued = await issueDocument(client, {
      workspaceId: rows[0].id,
      kind: 'receipt',
      source: `stripe_invoice:${inv.id}`,
      provider: 'stripe',
      at: inv.paidAt,
      currency: inv.currency,
      lines,
    });
    return issued !== null;
  });
}

/**
 * Issues what is missing: documents of checkouts paid or refunded and of overage invoices issued before
 * documents existed, or whose issue failed. Each source once, dated when its money moved.
 */
export async function issueMissingDocuments(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<PaidCheckout & { status: string; paid_at: Date; refunded_at: Date | null }>(
    `SELECT c.id, c.workspace_id, c.kind, c.slug, c.credits, c.amount_cents, c.provider, c.status, c.paid_at,
            c.refunded_at
     FROM checkouts c WHERE c.status <> 'open' AND NOT (c.kind = 'plan' AND c.provider = 'stripe')
       AND (NOT EXISTS (SELECT 1 FROM billing_documents d WHERE d.source = 'checkout:' || c.id)
         OR (c.status = 'refunded'
           AND NOT EXISTS (SELECT 1 FROM billing_documents d WHERE d.source = 'refund:' || c.id)))
     ORDER BY c.paid_at`,
  );
  const { rows: invoices } = await pool.query<{ id: string; issued_at: Date }>(
    `SELECT v.id, v.issued_at FROM invoices v WHERE v.status <> 'open'
       AND NOT EXISTS (SELECT 1 FROM billing_documents d WHERE d.source = 'invoice:' || v.id) ORDER BY v.issued_at`,
  );
  const count = async () =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM billing_documents')).rows[0]!.n;
  const before = await count();
  for (const c of rows) {
    await inTransaction(pool, async (client) => {
      await receiptForCheckout(client, c, c.paid_at, null);
      if (c.refunded_at) await creditNoteForRefund(client, c, c.refunded_at);
    });
  }
  // An invoice of a workspace with a Stripe customer is documented by Stripe's receipt: nothing here.
  for (const v of invoices) await inTransaction(pool, (client) => invoiceForOverage(client, v.id, v.issued_at));
  return (await count()) - before;
}
