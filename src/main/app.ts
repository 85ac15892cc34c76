// The HTTP application: health and metrics routes, the operation table as REST under /v1 and
// /api/v1 (and the keyless routes) and as MCP tools at /mcp, the billing routes, the web app, one
// error envelope for everything, request ids, request logs, and the rate-limit headers on every API answer.
import path from 'node:path';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { Gate } from '../accounts/gate.js';
import { IdempotencyKeys } from '../accounts/idempotency.js';
import { redactReconcileTokens } from '../accounts/reconcile-credentials.js';
import { RequestLog } from '../accounts/request-log.js';
import { Settlement } from '../accounts/settlement.js';
import { paymentProvider } from '../billing/payments.js';
import type { PaymentProvider } from '../billing/provider.js';
import { StripePayments } from '../billing/stripe.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Database } from '../db/index.js';
import {
  KEYLESS_PER_MINUTE,
  createRateLimiter,
  openWindow,
  rateLimitHeaders,
  type LimiterContext,
  type RateLimiter,
} from '../ratelimit/index.js';
import { createMetrics, type Metrics } from '../metrics.js';
import { createMailer } from '../accounts/mail.js';
import { BILLING_ROUTES, billingRoutes } from '../api/billing.js';
import { MATCH_JOB_ROUTES, matchJobRoutes } from '../api/match-jobs.js';
import { EXPORT_ROUTES, exportDownloadRoutes } from '../api/export-download.js';
import { SNAPSHOT_ROUTES, snapshotDownloadRoutes } from '../api/snapshot-download.js';
import { checkoutRoutes } from '../web/checkout-routes.js';
import { stripeWebhook } from '../api/stripe-webhook.js';
import { logRow } from '../api/call-record.js';
import { changeStreamRoutes } from '../api/change-stream.js';
import { streamChanges } from '../api/operations/changes.js';
import { Delivery } from '../api/delivery.js';
import { ErrorLog } from '../api/error-log.js';
import { newRequestId } from '../api/ids.js';
import { registerMcp } from '../api/mcp/transport.js';
import { openApiDocument } from '../api/openapi.js';
import type { Operation } from '../api/operation.js';
import { OPERATIONS } from '../api/operations/index.js';
import { KEYLESS_OPERATIONS } from '../api/operations/keyless.js';
import { Pipeline } from '../api/pipeline.js';
import { reconcileRoutes } from '../api/reconcile/routes.js';
import { registerOpenApi, registerRest } from '../api/rest.js';
import {
  clientErrorHandler,
  frameworkErrors,
  refuseConnect,
  registerTransportErrors,
} from '../api/transport-errors.js';
import { createServices, type Services } from '../api/services.js';
import type { WebDeps } from '../web/context.js';
import { cookieNames } from '../web/cookies.js';
import { browserPages } from '../web/error-pages.js';
import { webApp } from '../web/index.js';
import { proxyAuth } from '../web/proxy-auth.js';
import { snapshotDir } from '../snapshots/runner.js';
import { registerCompression } from './compression.js';

export interface AppDeps {
  readonly config: Config;
  readonly db: Database;
  readonly pepper: string;
  readonly clock?: Clock;
  /** Builds the rate limiter instead of the configured one (tests, benchmarks). */
  readonly limiter?: (ctx: LimiterContext) => RateLimiter | Promise<RateLimiter>;
  /** Who takes payments for credit packs (default: the one the configuration names). */
  readonly payments?: PaymentProvider;
  /** Where lines for the operator go (the mails written instead of sent, outside production). */
  readonly notify?: (line: string) => void;
  /** Serves the web app (default true; `npm run bench:web` measures the API without it, side by side). */
  readonly webApp?: boolean;
  /** Where the server's log lines go (default standard output; tests read them). */
  readonly logStream?: { write(line: string): void };
}

export interface App {
  readonly http: FastifyInstance;
  readonly services: Services;
  readonly gate: Gate;
  readonly settlement: Settlement;
  readonly pipeline: Pipeline;
  readonly requestLog: RequestLog;
  readonly metrics: Metrics;
}

/**
 * Request paths that are part of the API (logged, enveloped, rate-limit headers); health and metrics routes
 * are not.
 */
const API_PATH = /^\/(v1|api\/v1|mcp)(\/|$|\?)/;

/** A log destination that blanks every reconciliation credential a line holds before writing it. */
const redactingStream = (out: { write(line: string): void }) => ({
  write: (line: string): void => void out.write(redactReconcileTokens(line)),
});

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;
  const http = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers["x-api-key"]'],
      // Reconciliation credentials travel in the path: no line leaves with one (docs/reconciliation.md).
      stream: redactingStream(deps.logStream ?? process.stdout),
    },
    trustProxy: config.trustProxy,
    // Requests are recorded in request_logs; pino is kept for what goes wrong.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: newRequestId,
    // Never trust a caller's request id: ours are unique and say where they came from.
    requestIdHeader: false,
    // Every refusal in the envelope, including those made before routing (transport-errors.ts).
    clientErrorHandler,
    frameworkErrors,
    http: { requireHostHeader: false },
    // HEAD is answered 405 on the API (rest.ts): it would run and charge the whole operation.
    exposeHeadRoutes: false,
  });
  // Before any route: the plugin hooks each route as it is declared.
  await registerCompression(http);
  const services = createServices(db, clock, {
    pepper: deps.pepper,
    baseUrl: config.billing.publicBaseUrl,
    snapshotDir: snapshotDir(config),
    allowPrivateWebhooks: config.webhooks.allowPrivate,
  });
  const errors = new ErrorLog(http.log, clock);
  for (const pool of new Set([db.pool, db.readPool])) pool.on('connect', () => errors.connected());
  const settlement = new Settlement(db.pool, clock, (err, fields, message) => errors.error(err, fields, message));
  const gate = new Gate(db.pool, deps.pepper, clock, (requestIds) => settlement.releaseUnseen(requestIds));
  const metrics = createMetrics();
  const limiterContext: LimiterContext = {
    config,
    clock,
    countFailure: (reason) => metrics.rateLimitFailures.inc({ reason }),
    warn: (fields, message) => http.log.warn(fields, message),
  };
  const limiter = await (deps.limiter ?? createRateLimiter)(limiterContext);
  const idempotency = new IdempotencyKeys(db.pool, clock);
  const pipeline = new Pipeline({ gate, limiter, clock, services, errors, settlement, idempotency });
  const requestLog = new RequestLog(db.pool, (err) => errors.error(err, {}, 'writing request logs failed'));
  const delivery = new Delivery(settlement, clock, errors, (row) => requestLog.add(row));

  http.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // No answer is ever read as another type than it says (a JSON body as HTML).
    reply.header('x-content-type-options', 'nosniff');
    // Answers outside the pipeline (unknown routes, unreadable requests, transport-level errors)
    // identify no caller: they carry the client address's keyless allowance, which they do not consume.
    if (API_PATH.test(req.url) && !reply.hasHeader('x-ratelimit-limit')) {
      reply.headers(rateLimitHeaders(openWindow(KEYLESS_PER_MINUTE, clock.now().getTime())));
    }
  });
  http.addHook('onResponse', async (req, reply) => {
    // A charged answer's row was written with its charge (src/api/delivery.ts).
    if (API_PATH.test(req.url) && !req.call?.logged) requestLog.add(logRow(req, reply, reply.statusCode, clock));
  });
  const mailer = createMailer(
    { smtpUrl: config.web.smtpUrl, from: config.web.mailFrom, dir: path.join(config.dataDir, 'mail') },
    deps.notify ?? ((line) => http.log.info(line)),
  );
  http.addHook('onClose', async () => {
    mailer.close();
    errors.close();
    await settlement.close();
    await requestLog.flush();
    await limiter.close();
  });

  const routes = [...OPERATIONS, ...KEYLESS_OPERATIONS];
  const cookies = cookieNames(config.web.secureCookies);
  const payments = deps.payments ?? paymentProvider(config);
  const openapi = openApiDocument(routes, [
    ...BILLING_ROUTES,
    ...MATCH_JOB_ROUTES,
    ...EXPORT_ROUTES,
    ...SNAPSHOT_ROUTES,
  ]);
  const webDeps: WebDeps | null =
    deps.webApp === false
      ? null
      : {
          pool: db.pool,
          clock,
          pepper: deps.pepper,
          limiter,
          mailer,
          payments,
          dataset: services.dataset,
          allowPrivateWebhooks: config.webhooks.allowPrivate,
          operations: OPERATIONS,
          openapi: openapi as WebDeps['openapi'],
          publicBaseUrl: config.billing.publicBaseUrl,
          cookies,
          production: config.production,
          company: config.company,
        };
  registerTransportErrors(http, errors, webDeps ? browserPages(http, webDeps) : undefined);
  refuseConnect(http.server);

  http.get('/healthz', async () => ({ status: 'ok' }));
  http.head('/healthz', async (_req, reply) => reply.send());
  http.get('/metrics', async (_req, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
  http.get('/readyz', async (_req, reply) => {
    try {
      await db.readPool.query('SELECT 1');
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database does not answer' });
    }
  });
  const member = proxyAuth({ pool: db.pool, clock, cookies });
  registerRest(http, routes, pipeline, delivery, member);
  await http.register(changeStreamRoutes, {
    pipeline,
    gate,
    settlement,
    clock,
    errors,
    services,
    member,
    log: (row) => requestLog.add(row),
    operation: streamChanges as unknown as Operation,
  });
  await http.register(billingRoutes, { pool: db.pool, pipeline, clock, payments, member });
  await http.register(matchJobRoutes, { pool: db.pool, pipeline, clock, member });
  await http.register(exportDownloadRoutes, { pool: db.pool, links: services.exports.links, clock });
  await http.register(snapshotDownloadRoutes, { ...services.snapshots, clock });
  await http.register(checkoutRoutes, {
    pool: db.pool,
    limiter,
    clock,
    publicBaseUrl: config.billing.publicBaseUrl,
    provider: payments.name,
  });
  if (payments instanceof StripePayments)
    await http.register(stripeWebhook, { pool: db.pool, stripe: payments, clock });
  await http.register(reconcileRoutes, {
    pool: db.pool,
    pepper: deps.pepper,
    gate,
    limiter,
    clock,
    settlement,
    delivery,
    errors,
    services,
    baseUrl: config.billing.publicBaseUrl,
  });
  registerOpenApi(http, openapi, limiter);
  registerMcp(http, { pipeline, delivery, operations: OPERATIONS, allowedOrigins: config.mcpAllowedOrigins });
  if (webDeps) await http.register(webApp, webDeps);
  return { http, services, gate, settlement, pipeline, requestLog, metrics };
}
