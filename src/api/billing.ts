// The billing routes. Under the proxy prefix only (decisions.md): POST /billing/checkout-credit-pack
// and GET /billing/balance, authenticated like every route, limited in the workspace's per-minute
// window, free of charge. Beside them, outside the API: the hosted checkout page (/checkout/{id},
// for browsers, its id the capability) and Stripe's webhook (/webhooks/stripe, signed by Stripe).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type Stripe from 'stripe';
import { z } from 'zod';
import type { Caller, Gate } from '../accounts/gate.js';
import { presentedKey } from '../accounts/keys.js';
import { billingBalance } from '../billing/balance.js';
import { PACK_SLUGS } from '../billing/catalog.js';
import { checkoutView, fulfilCheckout, isCheckoutId, startCheckout } from '../billing/checkouts.js';
import { payProcessorItems } from '../billing/invoices.js';
import { checkoutPageUrl, type PaymentProvider } from '../billing/provider.js';
import { StripePayments } from '../billing/stripe.js';
import type { Clock } from '../clock.js';
import { rateLimitHeaders, type RateDecision, type RateLimiter } from '../limits/index.js';
import { checkoutPage, messagePage, PAGE_HEADERS } from './checkout-page.js';
import { ApiError, badRequest, internalError, unauthorized } from './errors.js';
import type { DocumentedRoute } from './openapi.js';
import { KEYLESS_PER_MINUTE } from './operations/keyless.js';
import { perMinuteRefusal, validationDetails } from './pipeline.js';
import { errorReply } from './rest.js';
import { singleEnvelope } from './schemas.js';

export interface BillingDeps {
  readonly pool: pg.Pool;
  readonly gate: Gate;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly payments: PaymentProvider;
  /** Where browsers reach this service (config.billing.publicBaseUrl). */
  readonly publicBaseUrl: string;
}

const PROXY_PREFIX = '/api/v1';

export const CheckoutRequest = z.strictObject({
  slug: z.enum(PACK_SLUGS).meta({
    description:
      'starter (1,000 credits, 5 USD), investigator (5,000, 23 USD), bulk (25,000, 99 USD) or power (100,000, 349 USD).',
  }),
});

export const CheckoutUrl = z.object({
  url: z
    .string()
    .meta({ format: 'uri', description: 'The hosted checkout page: open it in a browser to pay. Valid 24 hours.' }),
});

const credits = (description: string) => z.number().int().meta({ description });

export const Balance = z.object({
  balance: credits(
    'The canonical balance: the signed sum of the credit ledger (monthly credits + pack credits − overage not yet paid). Negative while overage is unpaid.',
  ),
  monthly_remaining: credits("Credits left of this cycle's grant (the trial: of its one-time balance)."),
  packs_remaining: credits('Credits left in unexpired packs.'),
  overage_unbilled: credits('Overage credits used and not yet on an invoice (billed daily at 01:00 UTC).'),
});

/** Neither route takes query parameters (`api_key` in the query is dropped unread, as everywhere). */
const NoParams = z.strictObject({});

/** The billing routes in the OpenAPI document, from the schemas above. */
export const BILLING_ROUTES: readonly DocumentedRoute[] = [
  {
    method: 'post',
    path: '/billing/checkout-credit-pack',
    servers: [PROXY_PREFIX],
    operationId: 'checkoutCreditPack',
    summary: 'Buy a credit pack',
    description:
      "Starts the checkout of a credit pack for the calling key's workspace and answers the hosted checkout address to open in a browser. Credits are granted once the payment is reported, once per checkout. Packs are for every plan, are spent after the monthly credits and expire 12 months after purchase (00:00 UTC on the anniversary). Body: JSON (Content-Type: application/json). Free of charge.",
    body: CheckoutRequest,
    response: singleEnvelope(CheckoutUrl),
    errors: [],
  },
  {
    method: 'get',
    path: '/billing/balance',
    servers: [PROXY_PREFIX],
    operationId: 'getBillingBalance',
    summary: 'Credit balance',
    description:
      "The workspace's canonical balance as one signed integer covering all grants, consumption, packs and overage, with its parts. Free of charge.",
    response: singleEnvelope(Balance),
    errors: [],
  },
];

const isJson = (contentType: string | undefined): boolean => /^application\/json\s*(;|$)/i.test(contentType ?? '');

/** The query without `api_key` (which never authenticates and is never an error), validated as empty. */
function checkNoParams(req: FastifyRequest): void {
  const { api_key: _ignored, ...query } = req.query as Record<string, unknown>;
  const parsed = NoParams.safeParse(query);
  if (!parsed.success) throw badRequest(validationDetails(parsed.error));
}

function readCheckoutRequest(req: FastifyRequest): z.output<typeof CheckoutRequest> {
  checkNoParams(req);
  if (!isJson(req.headers['content-type']))
    throw badRequest({ 'content-type': 'must be application/json' }, 'The request body must be JSON.');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
  } catch {
    throw badRequest({ body: 'is not valid JSON' }, 'The request body must be JSON.');
  }
  const parsed = CheckoutRequest.safeParse(body);
  if (!parsed.success) throw badRequest(validationDetails(parsed.error));
  return parsed.data;
}

const idOf = (v: string | { id: string } | null): string | null =>
  v === null ? null : typeof v === 'string' ? v : v.id;

export async function billingRoutes(app: FastifyInstance, deps: BillingDeps): Promise<void> {
  const { pool, gate, limiter, clock, payments, publicBaseUrl } = deps;

  // Bodies reach these handlers raw: the checkout validates its own (after authentication, like any
  // parameter), and Stripe's signature is over the exact bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  /** The stages of a billing call: authenticate, rate limit, then the handler's validation and work. */
  const billingCall =
    (handle: (req: FastifyRequest, caller: Caller) => Promise<unknown>) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      let rate: RateDecision | null = null;
      try {
        const creds = presentedKey(req.headers);
        if (creds.kind !== 'key') throw unauthorized();
        // Packs are for every plan: an MCP-only plan (rest_disabled) is authenticated all the same,
        // since the MCP transport has no billing tool and these are account routes, not REST data.
        const result = await gate.check({
          key: creds.key,
          surface: 'rest',
          reserve: false,
          leadFeed: false,
          csv: false,
          requestId: req.id,
        });
        const caller = result.caller;
        if (!caller || result.outcome === 'unauthorized') throw unauthorized();
        req.call = { workspaceId: caller.workspaceId, keyId: caller.keyId, credits: 0, surface: 'rest' };
        rate = await limiter.hit(`ws:${caller.workspaceId}`, caller.perMinute);
        if (!rate.allowed) throw perMinuteRefusal(rate);
        const data = await handle(req, caller);
        return reply
          .code(200)
          .headers(rateLimitHeaders(rate))
          .send({ data, meta: { request_id: req.id } });
      } catch (err) {
        const e = err instanceof ApiError ? err : internalError();
        if (!(err instanceof ApiError)) req.log.error({ err, request_id: req.id }, 'billing request failed');
        if (rate) reply.headers(rateLimitHeaders(rate));
        if (e.status === 401) reply.header('www-authenticate', 'Bearer');
        if (e.extra.retryAfter !== undefined) reply.header('retry-after', String(e.extra.retryAfter));
        return errorReply(reply, req.id, e);
      }
    };

  app.post(
    `${PROXY_PREFIX}/billing/checkout-credit-pack`,
    { bodyLimit: 16_384 },
    billingCall(async (req, caller) => {
      const { slug } = readCheckoutRequest(req);
      const { url } = await startCheckout(pool, payments, caller.workspaceId, slug, clock.now());
      return { url };
    }),
  );

  app.get(
    `${PROXY_PREFIX}/billing/balance`,
    billingCall(async (req, caller) => {
      checkNoParams(req);
      return billingBalance(pool, caller.workspaceId, clock.now());
    }),
  );

  /** A checkout page answer: per-client-address window like every keyless route, then `render`. */
  const pageRoute =
    (window: string, render: (id: string, reply: FastifyReply) => Promise<FastifyReply>) =>
    async (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply): Promise<FastifyReply> => {
      const rate = await limiter.hit(`ip:${req.ip}:${window}`, KEYLESS_PER_MINUTE);
      reply.headers(rateLimitHeaders(rate)).headers(PAGE_HEADERS);
      if (!rate.allowed) {
        return reply
          .code(429)
          .header('retry-after', String(rate.resetSeconds))
          .send(messagePage('Too many requests', `Retry in ${rate.resetSeconds} seconds.`));
      }
      const { id } = req.params;
      if (!isCheckoutId(id))
        return reply.code(404).send(messagePage('No such checkout', 'This checkout address is not valid.'));
      return render(id, reply);
    };

  app.get<{ Params: { id: string } }>(
    '/checkout/:id',
    pageRoute('checkout', async (id, reply) => {
      const view = await checkoutView(pool, id, clock.now());
      if (!view) return reply.code(404).send(messagePage('No such checkout', 'This checkout address is not valid.'));
      return reply.send(checkoutPage(view));
    }),
  );

  // The local provider's "payment": the same fulfilment as a processor's report, then back to the page.
  app.post<{ Params: { id: string } }>(
    '/checkout/:id/complete',
    { bodyLimit: 16_384 },
    pageRoute('checkout_complete', async (id, reply) => {
      const view = await checkoutView(pool, id, clock.now());
      if (!view) return reply.code(404).send(messagePage('No such checkout', 'This checkout address is not valid.'));
      const { checkout } = view;
      if (checkout.provider !== 'local') {
        return reply
          .code(409)
          .send(messagePage('Paid elsewhere', `This checkout is paid through ${checkout.provider}, not on this page.`));
      }
      if (checkout.status === 'open' && view.expired) return reply.code(410).send(checkoutPage(view));
      if (checkout.status === 'open') await fulfilCheckout(pool, { id }, clock.now());
      return reply.code(303).header('location', checkoutPageUrl(publicBaseUrl, id)).send();
    }),
  );

  if (payments instanceof StripePayments) {
    app.post('/webhooks/stripe', async (req, reply) => {
      let event: Stripe.Event;
      try {
        event = payments.verifyEvent(
          Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
          req.headers['stripe-signature'],
        );
      } catch {
        return errorReply(
          reply,
          req.id,
          badRequest(
            { 'stripe-signature': 'does not verify against the request body' },
            'Invalid Stripe webhook signature.',
          ),
        );
      }
      // A failure here is a 500: Stripe retries the event later, and fulfilment is idempotent.
      await handleStripeEvent(event, pool, payments, clock);
      return reply.send({ received: true });
    });
  }
}

async function handleStripeEvent(
  event: Stripe.Event,
  pool: pg.Pool,
  stripe: StripePayments,
  clock: Clock,
): Promise<void> {
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
      await payProcessorItems(
        pool,
        await stripe.paidInvoiceItems(invoice),
        clock.now(),
        `Stripe invoice ${invoice.id}`,
      );
      return;
    }
    default:
  }
}
