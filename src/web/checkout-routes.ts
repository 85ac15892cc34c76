// The hosted checkout pages, outside the API: GET /checkout/{id} shows a checkout (its id is the
// capability) and, when the local provider is the configured one, POST /checkout/{id}/complete
// records its payment. With Stripe configured that route does not exist: only the configured
// provider completes a checkout, whoever created it. Limited per client address like the keyless
// routes; plain HTML (checkout-page.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { checkoutView, fulfilCheckout, isCheckoutId } from '../billing/checkouts.js';
import { checkoutPageUrl, type ProviderName } from '../billing/provider.js';
import type { Clock } from '../clock.js';
import { KEYLESS_PER_MINUTE, addressWindow, rateLimitHeaders, type RateLimiter } from '../ratelimit/index.js';
import { checkoutPage, messagePage, PAGE_HEADERS } from './checkout-page.js';

export interface CheckoutRouteDeps {
  readonly pool: pg.Pool;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  /** Where browsers reach this service (config.billing.publicBaseUrl). */
  readonly publicBaseUrl: string;
  /** The configured payment provider. */
  readonly provider: ProviderName;
}

type PageRequest = FastifyRequest<{ Params: { id: string } }>;

const NO_SUCH_CHECKOUT = messagePage('No such checkout', 'This checkout address is not valid.');

export async function checkoutRoutes(app: FastifyInstance, deps: CheckoutRouteDeps): Promise<void> {
  const { pool, limiter, clock, publicBaseUrl, provider } = deps;
  const local = provider === 'local';

  // The completion form posts an empty urlencoded body; nothing in it is read.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  /** A checkout page answer: per-client-address window like every keyless route, then `render`. */
  const pageRoute =
    (window: string, render: (id: string, reply: FastifyReply) => Promise<FastifyReply>) =>
    async (req: PageRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const rate = await limiter.hit(addressWindow(req.ip, window), KEYLESS_PER_MINUTE);
      reply.headers(rateLimitHeaders(rate)).headers(PAGE_HEADERS);
      if (!rate.allowed) {
        return reply
          .code(429)
          .header('retry-after', String(rate.resetSeconds))
          .send(messagePage('Too many requests', `Retry in ${rate.resetSeconds} seconds.`));
      }
      const { id } = req.params;
      if (!isCheckoutId(id)) return reply.code(404).send(NO_SUCH_CHECKOUT);
      return render(id, reply);
    };

  app.get<{ Params: { id: string } }>(
    '/checkout/:id',
    pageRoute('checkout', async (id, reply) => {
      const view = await checkoutView(pool, id, clock.now());
      if (!view) return reply.code(404).send(NO_SUCH_CHECKOUT);
      return reply.send(checkoutPage({ ...view, payableHere: local && view.checkout.provider === 'local' }));
    }),
  );

  if (!local) return;
  // The local provider's "payment": the same fulfilment as a processor's report, then back to the page.
  app.post<{ Params: { id: string } }>(
    '/checkout/:id/complete',
    { bodyLimit: 16_384 },
    pageRoute('checkout_complete', async (id, reply) => {
      const view = await checkoutView(pool, id, clock.now());
      if (!view) return reply.code(404).send(NO_SUCH_CHECKOUT);
      const { checkout } = view;
      if (checkout.provider !== 'local') {
        const message = `This checkout is paid through ${checkout.provider}, not on this page.`;
        return reply.code(409).send(messagePage('Paid elsewhere', message));
      }
      if (checkout.status === 'open' && view.expired) {
        return reply.code(410).send(checkoutPage({ ...view, payableHere: true }));
      }
      if (checkout.status === 'open') await fulfilCheckout(pool, { id }, clock.now());
      return reply.code(303).header('location', checkoutPageUrl(publicBaseUrl, id)).send();
    }),
  );
}
