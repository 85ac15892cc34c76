// The web app, served by the API's own server: public pages, sign-up and login, the account dashboard
// and their assets (all local: no CDN, the service works on a closed network). In its own Fastify scope,
// so its hooks (the session's load, security headers) and form parsing never touch the API's routes.
// docs/web.md.
import { createRequire } from 'node:module';
import path from 'node:path';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { projectRoot } from '../config/paths.js';
import { billingRoutes } from './account/billing.js';
import { keyRoutes } from './account/keys.js';
import { logRoutes } from './account/logs.js';
import { auditRoutes } from './account/audit.js';
import { monitoringRoutes } from './account/monitoring.js';
import { exportsRoutes } from './account/exports.js';
import { matchingRoutes } from './account/matching.js';
import { memberRoutes } from './account/members.js';
import { overviewRoutes } from './account/overview.js';
import { playgroundRoutes } from './account/playground.js';
import { settingsRoutes } from './account/settings.js';
import { twoFactorRoutes } from './account/two-factor.js';
import { emailRoutes } from './account/email.js';
import { deletionRoutes } from './account/deletion.js';
import { emailConfirmRoutes } from './email-confirm.js';
import { guardMember } from './account/shared.js';
import { authRoutes } from './auth-routes.js';
import { loadWebState, type WebDeps } from './context.js';
import { legalPages } from './legal-pages.js';
import { llmsRoutes } from './llms.js';
import { publicPages } from './public-pages.js';

const require = createRequire(import.meta.url);
/** Our own stylesheet and scripts ship in the source tree; the compiled code serves them from there too. */
const ASSETS = path.join(projectRoot, 'src', 'web', 'assets');
const CHART_JS = path.dirname(require.resolve('chart.js'));
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist'));

/** Assets carry a version in their URL (layout.ts): browsers may keep them a day. */
const ASSET_MAX_AGE_MS = 86_400_000;
/** Forms are small: an address, a password, a name. */
const FORM_BODY_LIMIT = 16_384;

/** Where forms may send the browser: here, and Stripe's hosted checkout and portal when Stripe takes payments. */
const STRIPE_PAGES = ['https://checkout.stripe.com', 'https://billing.stripe.com'];

export async function webApp(app: FastifyInstance, deps: WebDeps): Promise<void> {
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'", ...(deps.payments.name === 'stripe' ? STRIPE_PAGES : [])],
        ...(deps.cookies.secure ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // Strict-Transport-Security only where the service is reached over TLS.
    strictTransportSecurity: deps.cookies.secure ? { maxAge: 31_536_000 } : false,
    referrerPolicy: { policy: 'same-origin' },
    frameguard: { action: 'deny' },
  });
  const statics = { decorateReply: false, maxAge: ASSET_MAX_AGE_MS, index: false } as const;
  await app.register(fastifyStatic, { ...statics, root: ASSETS, prefix: '/assets/' });
  await app.register(fastifyStatic, {
    ...statics,
    root: CHART_JS,
    prefix: '/assets/vendor/',
    allowedPath: (p) => p === '/chart.umd.min.js',
  });
  await app.register(fastifyStatic, { ...statics, root: SWAGGER_UI, prefix: '/assets/vendor/swagger-ui/' });

  app.addHook('onRequest', async (req, reply) => {
    if (req.url.startsWith('/assets/')) return;
    req.web = await loadWebState(deps, req, reply);
  });

  for (const routes of [publicPages, legalPages, llmsRoutes, authRoutes, emailConfirmRoutes]) await routes(app, deps);
  // The account pages in a scope of their own, behind the member guard: no route of theirs runs for a
  // visitor who is not signed in to a workspace, or with a form's expired CSRF token.
  await app.register(async (account) => {
    account.addHook('preHandler', guardMember);
    for (const routes of [
      overviewRoutes,
      keyRoutes,
      billingRoutes,
      logRoutes,
      auditRoutes,
      monitoringRoutes,
      matchingRoutes,
      exportsRoutes,
      playgroundRoutes,
      memberRoutes,
      settingsRoutes,
      twoFactorRoutes,
      emailRoutes,
      deletionRoutes,
    ])
      await routes(account, deps);
  });
}
