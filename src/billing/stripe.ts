// The Stripe provider, through the official package: a Checkout Session per checkout (payment mode for
// packs, subscription mode for plans), plan changes, cancellation and the customer portal, webhook
// events verified on their raw body with Stripe's own helper, refunds, and overage as pending invoice
// items (Stripe puts them on the customer's next subscription invoice).
import Stripe from 'stripe';
import { PACKS, PLANS, type PlanSlug } from '../accounts/catalog.js';
import {
  checkoutPageUrl,
  type CheckoutStart,
  type PackCheckoutStart,
  type PaymentProvider,
  type PlanCheckoutStart,
  type ProcessorInvoiceItem,
  type ProcessorInvoicing,
  type SubscriptionBilling,
} from './provider.js';

/** A plan's monthly price, as Stripe's inline prices take it. */
const planAmount = (plan: PlanSlug, currency: string) => ({
  currency,
  unit_amount: PLANS[plan].priceCents ?? 0,
  recurring: { interval: 'month' as const },
});

export interface StripeSettings {
  readonly secretKey: string;
  readonly webhookSecret: string;
  readonly publicBaseUrl: string;
  /** How requests reach Stripe (tests pass a stub; the default is Node's HTTP). */
  readonly httpClient?: Stripe.HttpClient;
}

export class StripePayments implements PaymentProvider, ProcessorInvoicing, SubscriptionBilling {
  readonly name = 'stripe';
  readonly invoicing: ProcessorInvoicing = this;
  readonly subscriptions: SubscriptionBilling = this;
  private readonly stripe: Stripe;

  constructor(private readonly settings: StripeSettings) {
    this.stripe = new Stripe(settings.secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      ...(settings.httpClient ? { httpClient: settings.httpClient } : {}),
    });
  }

  async startCheckout(c: CheckoutStart): Promise<{ url: string; providerRef: string }> {
    const session = c.kind === 'plan' ? await this.planSession(c) : await this.packSession(c);
    if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a URL`);
    return { url: session.url, providerRef: session.id };
  }

  private packSession(c: PackCheckoutStart): Promise<Stripe.Checkout.Session> {
    const page = checkoutPageUrl(this.settings.publicBaseUrl, c.id);
    return this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        client_reference_id: c.id,
        metadata: { checkout_id: c.id, workspace_id: c.workspaceId, slug: c.slug },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: c.currency,
              unit_amount: c.amountCents,
              product_data: {
                name: `${PACKS[c.slug].title} credit pack`,
                description: `${c.credits.toLocaleString('en-US')} API credits, valid 12 months`,
              },
            },
          },
        ],
        // A known customer keeps one customer per workspace; otherwise Stripe makes one, learnt on payment.
        ...(c.customer ? { customer: c.customer } : { customer_creation: 'always' as const }),
        success_url: page,
        cancel_url: page,
      },
      { idempotencyKey: `checkout-${c.id}` },
    );
  }

  /**
   * Checkout in subscription mode: the plan's monthly price, its cycle anchored at 00:00 UTC on the 1st like
   * the service's cycles, this month's part prorated (docs/billing.md, "Plans").
   */
  private planSession(c: PlanCheckoutStart): Promise<Stripe.Checkout.Session> {
    const page = checkoutPageUrl(this.settings.publicBaseUrl, c.id);
    return this.stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        client_reference_id: c.id,
        metadata: { checkout_id: c.id, workspace_id: c.workspaceId, plan: c.slug },
        line_items: [
          {
            quantity: 1,
            price_data: {
              ...planAmount(c.slug, c.currency),
              product_data: { name: `Registry Lookup ${PLANS[c.slug].name} plan` },
            },
          },
        ],
        subscription_data: {
          billing_cycle_anchor: Math.floor(c.anchor.getTime() / 1000),
          proration_behavior: 'create_prorations',
          metadata: { workspace_id: c.workspaceId, plan: c.slug },
        },
        ...(c.customer ? { customer: c.customer } : {}),
        success_url: page,
        cancel_url: page,
      },
      { idempotencyKey: `checkout-${c.id}` },
    );
  }

  async changePlan(subscriptionId: string, plan: PlanSlug, when: 'now' | 'next_cycle'): Promise<void> {
    const sub = await this.stripe.subscriptions.retrieve(subscriptionId);
    const item = sub.items.data[0];
    if (!item) throw new Error(`Stripe subscription ${subscriptionId} has no item`);
    const product = typeof item.price.product === 'string' ? item.price.product : item.price.product.id;
    await this.stripe.subscriptions.update(subscriptionId, {
      items: [{ id: item.id, price_data: { ...planAmount(plan, item.price.currency), product } }],
      proration_behavior: when === 'now' ? 'always_invoice' : 'none',
      metadata: { plan },
    });
  }

  async cancel(subscriptionId: string): Promise<void> {
    await this.stripe.subscriptions.cancel(subscriptionId, { prorate: false });
  }

  async portalUrl(customer: string, returnUrl: string): Promise<string> {
    const session = await this.stripe.billingPortal.sessions.create({ customer, return_url: returnUrl });
    return session.url;
  }

  async refund(c: { id: string; paymentRef: string | null; amountCents: number }): Promise<string> {
    if (!c.paymentRef) throw new Error(`checkout ${c.id} has no Stripe payment to refund`);
    const refund = await this.stripe.refunds.create(
      { payment_intent: c.paymentRef, amount: c.amountCents, metadata: { checkout_id: c.id } },
      { idempotencyKey: `refund-${c.id}` },
    );
    return refund.id;
  }

  async addInvoiceItem(item: ProcessorInvoiceItem): Promise<string> {
    const created = await this.stripe.invoiceItems.create(
      {
        customer: item.customer,
        amount: item.amountCents,
        currency: item.currency,
        description: `API overage ${item.day}: ${item.credits.toLocaleString('en-US')} credits`,
        metadata: {
          invoice_item_id: String(item.id),
          workspace_id: item.workspaceId,
          day: item.day,
          credits: String(item.credits),
        },
      },
      { idempotencyKey: `overage-item-${item.id}` },
    );
    return created.id;
  }

  async finalInvoice(invoice: { id: string; workspaceId: string; customer: string }): Promise<string> {
    const created = await this.stripe.invoices.create(
      {
        customer: invoice.customer,
        pending_invoice_items_behavior: 'include',
        auto_advance: true,
        description: 'Final invoice: overage accrued until the subscription was cancelled',
        metadata: { invoice_id: invoice.id, workspace_id: invoice.workspaceId },
      },
      { idempotencyKey: `final-invoice-${invoice.id}` },
    );
    return created.id;
  }

  /** The event of a webhook request, verified against its raw body; throws when the signature is wrong. */
  verifyEvent(rawBody: Buffer, signature: string | string[] | undefined): Stripe.Event {
    if (typeof signature !== 'string') throw new Error('missing Stripe-Signature header');
    return this.stripe.webhooks.constructEvent(rawBody, signature, this.settings.webhookSecret);
  }

  /** Every line of an invoice (fetched when the event holds only the first page). */
  async invoiceLines(invoice: Stripe.Invoice): Promise<Stripe.InvoiceLineItem[]> {
    if (!invoice.lines.has_more || !invoice.id) return invoice.lines.data;
    return this.stripe.invoices.listLineItems(invoice.id, { limit: 100 }).autoPagingToArray({ limit: 10_000 });
  }

  /**
   * The invoice items a paid Stripe invoice carried (all its lines, fetched when the event holds only the
   * first page).
   */
  async paidInvoiceItems(invoice: Stripe.Invoice): Promise<string[]> {
    return (await this.invoiceLines(invoice)).flatMap((l) =>
      l.parent?.invoice_item_details?.invoice_item ? [l.parent.invoice_item_details.invoice_item] : [],
    );
  }
}
