// Who takes the money. One interface, two providers: the service's own checkout page (`local`:
// development, demos, self-hosting without a card processor) and Stripe. Whatever the provider,
// credits are granted by one fulfilment path (checkouts.ts), once per checkout.
import type { PackSlug, PlanSlug } from '../accounts/catalog.js';

export type ProviderName = 'local' | 'stripe';

/** A checkout about to be offered to the buyer. */
export type CheckoutStart = PackCheckoutStart | PlanCheckoutStart;

interface CheckoutBase {
  readonly id: string;
  readonly workspaceId: string;
  readonly credits: number;
  /** Due now. */
  readonly amountCents: number;
  readonly currency: string;
  /** The workspace's customer at the processor, when known. */
  readonly customer: string | null;
}

export interface PackCheckoutStart extends CheckoutBase {
  readonly kind: 'pack';
  readonly slug: PackSlug;
}

/** A subscription to a plan: billed monthly from 00:00 UTC on the 1st, this month's part due now. */
export interface PlanCheckoutStart extends CheckoutBase {
  readonly kind: 'plan';
  readonly slug: PlanSlug;
  readonly monthlyCents: number;
  /** The first full cycle's start (the 1st of next month). */
  readonly anchor: Date;
}

export interface ProcessorInvoiceItem {
  readonly id: number;
  readonly workspaceId: string;
  readonly customer: string;
  readonly day: string;
  readonly credits: number;
  readonly amountCents: number;
  readonly currency: string;
}

/** Invoicing at a card processor: overage items land on the customer's next invoice there. */
export interface ProcessorInvoicing {
  /** A pending invoice item; returns the processor's id. Repeating it for the same item adds nothing. */
  addInvoiceItem(item: ProcessorInvoiceItem): Promise<string>;
  /** The final invoice of a cancelled subscription, carrying the customer's pending items; returns its id. */
  finalInvoice(invoice: { id: string; workspaceId: string; customer: string }): Promise<string>;
}

export interface PaymentProvider {
  readonly name: ProviderName;
  /** Where to send the buyer, and the provider's own reference of the checkout (null: none). */
  startCheckout(checkout: CheckoutStart): Promise<{ url: string; providerRef: string | null }>;
  /** Gives back the money of a paid checkout; the provider's refund id. */
  refund(checkout: { id: string; paymentRef: string | null; amountCents: number }): Promise<string | null>;
  /** Null: invoices are kept here only (and marked paid by the operator). */
  readonly invoicing: ProcessorInvoicing | null;
  /** Null: subscriptions are kept here only (the local provider). */
  readonly subscriptions: SubscriptionBilling | null;
}

/** A processor's subscriptions: the plan's price changed, cancelled, and the customer's own portal. */
export interface SubscriptionBilling {
  /**
   * The subscription billed at `plan`'s price: now, with the difference for the rest of the cycle invoiced
   * at once, or from the next cycle.
   */
  changePlan(subscriptionId: string, plan: PlanSlug, when: 'now' | 'next_cycle'): Promise<void>;
  /** Ends the subscription now, without refunding the cycle paid for. */
  cancel(subscriptionId: string): Promise<void>;
  /** Where the customer manages payment methods and invoices at the processor. */
  portalUrl(customer: string, returnUrl: string): Promise<string>;
}

/** The local provider: the checkout page this service hosts at /checkout/{id}. No money moves. */
export class LocalPayments implements PaymentProvider {
  readonly name = 'local';
  readonly invoicing = null;
  readonly subscriptions = null;

  constructor(private readonly publicBaseUrl: string) {}

  async startCheckout(checkout: CheckoutStart): Promise<{ url: string; providerRef: null }> {
    return { url: checkoutPageUrl(this.publicBaseUrl, checkout.id), providerRef: null };
  }

  async refund(): Promise<null> {
    return null;
  }
}

/** The page of a checkout on this service: the local checkout page, and Stripe's return address. */
export const checkoutPageUrl = (publicBaseUrl: string, id: string): string => `${publicBaseUrl}/checkout/${id}`;
