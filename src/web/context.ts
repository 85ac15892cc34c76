// What every page and form of the web app shares: its dependencies, the signed-in session (or the
// CSRF secret of a signed-out browser) loaded once per request, CSRF tokens and their check, and
// throttles built on the API's rate-limit windows. docs/web.md.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Mailer } from '../accounts/mail.js';
import { csrfTokens, loadSession, type Session } from '../accounts/sessions.js';
import { isTokenShaped } from '../accounts/tokens.js';
import type { PaymentProvider } from '../billing/provider.js';
import type { Clock } from '../clock.js';
import type { CompanyConfig } from '../config/company.js';
import { addressWindow, type RateLimiter } from '../ratelimit/index.js';
import type { Operation } from '../api/operation.js';
import type { DatasetInfo } from '../registry/dataset-info.js';
import { setCookie, requestCookies, type CookieNames } from './cookies.js';

export interface WebDeps {
  readonly pool: pg.Pool;
  readonly clock: Clock;
  readonly pepper: string;
  readonly limiter: RateLimiter;
  readonly mailer: Mailer;
  readonly payments: PaymentProvider;
  readonly dataset: DatasetInfo;
  /** Webhook endpoints may be private addresses (WEBHOOKS_ALLOW_PRIVATE; docs/webhooks.md). */
  readonly allowPrivateWebhooks: boolean;
  readonly operations: readonly Operation[];
  /** The OpenAPI document as served at /v1/openapi.json. */
  readonly openapi: { paths: Record<string, Record<string, unknown>> };
  /** Where browsers reach the service, no trailing slash. */
  readonly publicBaseUrl: string;
  readonly cookies: CookieNames;
  readonly production: boolean;
  /** The operator and its contact addresses (every footer, the legal and contact pages). */
  readonly company: CompanyConfig;
}

export interface WebState {
  readonly session: Session | null;
  /** The secret this request's CSRF tokens are made from: the session's, or the signed-out browser's cookie. */
  readonly csrfSecret: string;
  /** The operator every page's footer names (the app's configuration, carried here for the page shell). */
  readonly company: CompanyConfig;
}

declare module 'fastify' {
  interface FastifyRequest {
    web?: WebState;
  }
}

/** Loads the session a cookie names (or the signed-out CSRF secret, made on first visit). */
export async function loadWebState(deps: WebDeps, req: FastifyRequest, reply: FastifyReply): Promise<WebState> {
  const cookies = requestCookies(req);
  const token = cookies[deps.cookies.session];
  const session = isTokenShaped(token) ? await loadSession(deps.pool, token, deps.clock.now()) : null;
  if (session) return { session, csrfSecret: session.csrfSecret, company: deps.company };
  let secret = cookies[deps.cookies.csrf];
  if (!secret || !/^[A-Za-z0-9_-]{16,64}$/.test(secret)) {
    secret = csrfTokens.secretSync();
    setCookie(reply, deps.cookies, deps.cookies.csrf, secret, null);
  }
  return { session: null, csrfSecret: secret, company: deps.company };
}

export const webState = (req: FastifyRequest): WebState => {
  if (!req.web) throw new Error('the web state is loaded by the web routes hook');
  return req.web;
};

export const csrfToken = (req: FastifyRequest): string => csrfTokens.create(webState(req).csrfSecret);

/** The form's (or header's) CSRF token checked against the request's secret. */
export function csrfValid(req: FastifyRequest, token: unknown): boolean {
  return typeof token === 'string' && token.length < 200 && csrfTokens.verify(webState(req).csrfSecret, token);
}

/** Attempts at signing in, signing up and mailing links, per client address and per minute. */
const FORM_PER_MINUTE = 10;
/** Password attempts on one address, per minute, whoever makes them (guessing one account slowly is still slow). */
const LOGIN_PER_ADDRESS_PER_MINUTE = 5;

/**
 * Counts an attempt in the client address's window for `form` and, when given, the window of the email
 * address it names; the seconds to wait when either is full (null: go on).
 */
export async function throttle(
  deps: WebDeps,
  req: FastifyRequest,
  form: string,
  email?: string,
  perEmail = LOGIN_PER_ADDRESS_PER_MINUTE,
): Promise<number | null> {
  const byClient = await deps.limiter.hit(addressWindow(req.ip, `web_${form}`), FORM_PER_MINUTE);
  if (!byClient.allowed) return byClient.resetSeconds;
  if (email === undefined) return null;
  const hashed = createHash('sha256').update(email).digest('base64url').slice(0, 22);
  const byEmail = await deps.limiter.hit(`web:${form}:${hashed}`, perEmail);
  return byEmail.allowed ? null : byEmail.resetSeconds;
}
