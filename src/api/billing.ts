// The billing routes (docs/contract.md, "Billing routes"), under the proxy prefix only:
// POST /billing/checkout-credit-pack and GET /billing/balance. They pass the pipeline's account
// stages (authenticated for any plan, counted in the workspace's window, never metered); each
// validates its own input after authentication, like any parameter.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { PACK_SLUGS, PACK_VALID_MONTHS, packsInWords } from '../accounts/catalog.js';
import { billingBalance } from '../billing/balance.js';
import { startCheckout } from '../billing/checkouts.js';
import type { PaymentProvider } from '../billing/provider.js';
import type { Clock } from '../clock.js';
import { ApiError, badRequest } from './errors.js';
import type { DocumentedRoute } from './openapi.js';
import type { MemberAuth, Pipeline } from './pipeline.js';
import { parseOrRefuse } from './refusals.js';
import { credentialHeaders } from './credentials.js';
import { recordCall } from './call-record.js';
import { sendOutcome } from './rest.js';
import { singleEnvelope } from './schemas.js';

const ownerOnly = () => new ApiError('forbidden', "Only the workspace's owner changes its billing.");

export interface BillingDeps {
  readonly pool: pg.Pool;
  readonly pipeline: Pipeline;
  readonly clock: Clock;
  readonly payments: PaymentProvider;
  /** A member signed in to the web app, calling with the session instead of a key. */
  readonly member: MemberAuth;
}

const PROXY_PREFIX = '/api/v1';

const CheckoutRequest = z.strictObject({
  slug: z.enum(PACK_SLUGS).meta({ description: `The pack: ${packsInWords()}.` }),
});

const CheckoutUrl = z.object({
  url: z
    .string()
    .meta({ format: 'uri', description: 'The hosted checkout page: open it in a browser to pay. Valid 24 hours.' }),
});

const credits = (description: string) => z.number().int().meta({ description });

const Balance = z.object({
  balance: credits(
    'The canonical balance: the signed sum of the credit ledger ' +
      '(monthly credits + pack credits − overage not yet paid). Negative while overage is unpaid.',
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
      "Starts the checkout of a credit pack for the calling key's workspace and answers the hosted checkout " +
      'address to open in a browser. Credits are granted once the payment is reported, once per checkout. ' +
      `Packs are for every plan, are spent after the monthly credits and expire ${PACK_VALID_MONTHS} months ` +
      'after purchase (00:00 UTC on the anniversary). Body: JSON (Content-Type: application/json). Free of charge.',
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
      "The workspace's canonical balance as one signed integer covering all grants, consumption, packs and " +
      'overage, with its parts. Free of charge.',
    response: singleEnvelope(Balance),
    errors: [],
  },
];

const isJson = (contentType: string | undefined): boolean => /^application\/json\s*(;|$)/i.test(contentType ?? '');

/** The query without `api_key` (which never authenticates and is never an error), validated as empty. */
function checkNoParams(req: FastifyRequest): void {
  const { api_key: _ignored, ...query } = req.query as Record<string, unknown>;
  parseOrRefuse(NoParams, query);
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
  return parseOrRefuse(CheckoutRequest, body);
}

export async function billingRoutes(app: FastifyInstance, deps: BillingDeps): Promise<void> {
  const { pool, pipeline, clock, payments, member } = deps;

  // The checkout's body reaches its handler raw: it is validated after authentication.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  /** `billing`: a change of billing, which a signed-in member may make only as the workspace's owner. */
  const accountRoute =
    (handle: (req: FastifyRequest, workspaceId: string) => Promise<unknown>, billing = false) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const signedIn = await member(req);
      const outcome = await pipeline.account(
        { headers: credentialHeaders(req), requestId: req.id, member: signedIn },
        (caller) => {
          if (billing && signedIn && signedIn.role !== 'owner') throw ownerOnly();
          return handle(req, caller.workspaceId);
        },
      );
      recordCall(req, outcome, 'rest');
      return sendOutcome(reply, outcome);
    };

  app.post(
    `${PROXY_PREFIX}/billing/checkout-credit-pack`,
    { bodyLimit: 16_384 },
    accountRoute(async (req, workspaceId) => {
      const { slug } = readCheckoutRequest(req);
      const { url } = await startCheckout(pool, payments, workspaceId, slug, clock.now());
      return { url };
    }, true),
  );

  app.get(
    `${PROXY_PREFIX}/billing/balance`,
    accountRoute(async (req, workspaceId) => {
      checkNoParams(req);
      return billingBalance(pool, workspaceId, clock.now());
    }),
  );
}
