// Stripe, offline, for the billing tests: the official package's HTTP client over a stub that answers recorded API
// objects (test/fixtures/stripe) and records what was sent; webhook payloads signed with the package's test helper.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';
import { paymentProvider } from '../../src/billing/payments.js';
import type { PaymentProvider } from '../../src/billing/provider.js';
import type { Config } from '../../src/config/index.js';
import { projectRoot } from '../../src/config/paths.js';

export const WEBHOOK_SECRET = 'whsec_test_4eC39HqLyjWDarjtT1zdp7dc';
export const SECRET_KEY = 'sk_test_51Registry0Lookup0Stub';
export const CUSTOMER = 'cus_TqR8vB3kLm2Np4';

export type Json = Record<string, any>;

export const fixture = (name: string): Json =>
  JSON.parse(readFileSync(path.join(projectRoot, 'test/fixtures/stripe', name), 'utf8'));

export interface Sent {
  method: string;
  path: string;
  body: URLSearchParams;
  headers: Headers;
}

/** Answers keyed by `METHOD /path`; a request with no answer is Stripe's 404. */
export type StripeAnswers = Record<string, (body: URLSearchParams) => Json>;

export class StripeStub {
  /** Every request the package sent to "Stripe", in order. */
  readonly sent: Sent[] = [];

  constructor(private readonly answers: StripeAnswers) {}

  /** The payment provider of `config`, talking to this stub. */
  provider(config: Config): PaymentProvider {
    return paymentProvider(config, Stripe.createFetchHttpClient(this.fetch as typeof fetch));
  }

  lastSent(p: string): Sent {
    const s = this.sent.filter((r) => r.path === p).at(-1);
    assert.ok(s, `nothing sent to ${p}`);
    return s;
  }

  private readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const method = init?.method ?? 'GET';
    const body = new URLSearchParams(typeof init?.body === 'string' ? init.body : '');
    this.sent.push({ method, path: url.pathname, body, headers: new Headers(init?.headers) });
    const answer = this.answers[`${method} ${url.pathname}`];
    const headers = { 'content-type': 'application/json', 'request-id': 'req_stub' };
    const message = `no stub for ${method} ${url.pathname}`;
    if (!answer) return Response.json({ error: { type: 'invalid_request_error', message } }, { status: 404, headers });
    return Response.json(answer(body), { status: 200, headers });
  };
}

/** The `Stripe-Signature` header of `payload`, as Stripe signs a webhook. */
export const sign = (payload: string, secret = WEBHOOK_SECRET, timestamp?: number): string =>
  Stripe.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
