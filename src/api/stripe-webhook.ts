// POST /webhooks/stripe (served only with the Stripe provider): Stripe's signed reports of paid
// checkouts (packs and subscriptions), subscription changes and invoices, verified over the exact
// bytes, each applied once (docs/billing.md, "Subscriptions with Stripe").
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type Stripe from 'stripe';
import { fulfilCheckout } from '../billing/checkouts.js';
import { receiptForStripeInvoice, type StripePaidInvoice } from '../billing/document-sources.js';
import { payProcessorItems } from '../billing/invoices.js';
import { sendToProcessor } from '../billing/overage.js';
import {
  applySubscriptionEvent,
  recordHandled,
  seenEvent,
  stateOf,
  type SubscriptionState,
} from '../billing/stripe-events.js';
import type { StripePayments } from '../billing/stripe.js';
import type { Clock } from '../clock.js';
import { badRequest } from './errors.js';
import { errorReply } from './rest.js';

export interface StripeWebhookDeps {
  readonly pool: pg.Pool;
  readonly stripe: StripePayments;
  readonly clock: Clock;
}

const idOf = (v: string | { id: string } | null): string | null =>
  v === null ? null : typeof v === 'string' ? v : v.id;

export async function stripeWebhook(app: FastifyInstance, deps: StripeWebhookDeps): Promise<void> {
  // Stripe's signature is over the exact bytes: the body reaches the handler raw.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.post('/webhooks/stripe', async (req, reply) => {
    let event: Stripe.Event;
    try {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      event = deps.stripe.verifyEvent(body, req.headers['stripe-signature']);
    } catch {
      const details = { 'stripe-signature': 'does not verify against the request body' };
      return errorReply(reply, req.id, badRequest(details, 'Invalid Stripe webhook signature.'));
    }
    // A failure here is a 500: Stripe retries the event later, and every handling is idempotent.
    await handleStripeEvent(event, deps);
    return reply.send({ received: true });
  });
}

async function handleStripeEvent(event: Stripe.Event, { pool, stripe, clock }: StripeWebhookDeps): Promise<void> {
  if (await seenEvent(pool, event.id)) return;
  const now = clock.now();
  const created = new Date(event.created * 1000);
  const subscriptionEvent = (subscription: string | null, state: SubscriptionState, plan: string | null) =>
    subscription
      ? applySubscriptionEvent(pool, { id: event.id, type: event.type, created, subscription, state, plan }, now)
      : recordHandled(pool, { id: event.id, type: event.type, created }, now);
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      // A delayed payment method completes the session unpaid; its async_payment_succeeded follows.
      // A subscription whose first invoice is nothing (a 100% coupon) needs no payment.
      if (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') return;
      await fulfilCheckout(pool, { providerRef: session.id }, now, {
        paymentRef: idOf(session.payment_intent),
        customer: idOf(session.customer),
        subscription: idOf(session.subscription),
      });
      break;
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const sub = event.data.object;
      const state = event.type === 'customer.subscription.deleted' ? 'cancelled' : stateOf(sub.status);
      await subscriptionEvent(sub.id, state, sub.metadata?.plan ?? null);
      break;
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      if (event.type === 'invoice.paid') {
        const items = await stripe.paidInvoiceItems(invoice);
        await payProcessorItems(pool, items, now, `Stripe invoice ${invoice.id}`);
        await receiptForStripeInvoice(pool, await paidInvoice(stripe, invoice, now));
      }
      const subscription = idOf(invoice.parent?.subscription_details?.subscription ?? null);
      await subscriptionEvent(subscription, event.type === 'invoice.paid' ? 'active' : 'past_due', null);
      break;
    }
    default:
      return;
  }
  await recordHandled(pool, { id: event.id, type: event.type, created }, now);
  // A cancellation issues the final invoice of the overage: it goes to Stripe now.
  await sendToProcessor(pool, stripe);
}

/** A paid Stripe invoice as its receipt reads it: every line, the amount paid, when. */
async function paidInvoice(stripe: StripePayments, invoice: Stripe.Invoice, now: Date): Promise<StripePaidInvoice> {
  const paidAt = invoice.status_transitions?.paid_at;
  const details = invoice.parent?.subscription_details ?? null;
  return {
    id: invoice.id ?? '',
    customer: idOf(invoice.customer ?? null),
    subscription: idOf(details?.subscription ?? null),
    workspaceId: details?.metadata?.workspace_id ?? null,
    currency: invoice.currency,
    amountPaid: invoice.amount_paid,
    paidAt: paidAt ? new Date(paidAt * 1000) : now,
    lines: (await stripe.invoiceLines(invoice)).map((l) => ({
      description: l.description,
      quantity: l.quantity,
      amount: l.amount,
    })),
  };
}
