// POST /webhooks/stripe (served only with the Stripe provider): Stripe's signed reports of paid
// checkouts and invoices, verified over the exact bytes, each handled idempotently.
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type Stripe from 'stripe';
import { fulfilCheckout } from '../billing/checkouts.js';
import { payProcessorItems } from '../billing/invoices.js';
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
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      // A delayed payment method completes the session unpaid; its async_payment_succeeded follows.
      if (session.payment_status !== 'paid') return;
      await fulfilCheckout(pool, { providerRef: session.id }, clock.now(), {
        paymentRef: idOf(session.payment_intent),
        customer: idOf(session.customer),
      });
      return;
    }
    case 'invoice.paid': {
      const invoice = event.data.object;
      const items = await stripe.paidInvoiceItems(invoice);
      await payProcessorItems(pool, items, clock.now(), `Stripe invoice ${invoice.id}`);
      return;
    }
    default:
  }
}
