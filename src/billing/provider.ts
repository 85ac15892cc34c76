// Who takes the money. One interface, two providers: the service's own checkout page (`local`:
// development, demos, self-hosting without a card processor) and Stripe. Whatever the provider,
// credits are granted by one fulfilment path (checkouts.ts), once per checkout.
import type { PackSlug } from '../accounts/catalog.js';

export type ProviderName = 'local' | 'stripe';

/** A checkout about to be offered to the buyer. */
export interface CheckoutStart {
  readonly id: string;
  readonly workspaceId: string;
  readonly slug: PackSlug;
  readonly credits: number;
  readonly amountCents: number;
  readonly currency: string;
  /** The workspace's customer at the processor, when known. */
  readonly customer: string | null;
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
}

/** The local provider: the checkout page this service hosts at /checkout/{id}. No money moves. */
export class LocalPayments implements PaymentProvider {
  readonly name = 'local';
  readonly invoicing = null;

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
