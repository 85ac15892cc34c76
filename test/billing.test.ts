// Billing through real requests: credit packs bought over HTTP through the local checkout (each
// pack, once, however often the completion repeats), the balance, refunds, pack expiry, overage
// invoicing and cancellation. Every balance is checked against the ledger.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { PACKS, type PackSlug } from '../src/accounts/catalog.js';
import {
  createKey,
  revokeKey,
  setPerMinute,
  setStatus,
  setSuspended,
  adjustCredits,
} from '../src/accounts/workspaces.js';
import { formatUsd } from '../src/accounts/catalog.js';
import { refundCheckout } from '../src/billing/checkouts.js';
import { listInvoices, markInvoicePaid } from '../src/billing/invoices.js';
import { overageBillingJob, packExpiryJob } from '../src/billing/jobs.js';
import { billOverage, overageAmountCents } from '../src/billing/overage.js';
import { LocalPayments } from '../src/billing/provider.js';
import { cancelSubscription } from '../src/billing/subscription.js';
import { cycleJob } from '../src/accounts/jobs.js';
import { loadConfig } from '../src/config/index.js';
import { projectRoot } from '../src/config/paths.js';
import { JOBS } from '../src/main/jobs.js';
import { runJob, type Job } from '../src/jobs/job.js';
import { Contract } from './support/contract.js';
import { PEPPER, testApp, type TestApp } from './support/app.js';

let t: TestApp;
let contract: Contract;
const CHECKOUT = '/api/v1/billing/checkout-credit-pack';
const BALANCE = '/api/v1/billing/balance';
const METERED = '/v1/filings/recent';
const DAY = 86_400_000;
const START = '2026-03-10T12:00:00Z';
let ipCount = 0;

before(async () => {
  t = await testApp({ now: START });
  contract = new Contract((await t.get('/v1/openapi.json')).json());
});
after(() => t.close());

/** A client address of its own: the checkout pages' per-address windows of one test stay apart from the others'. */
const newIp = (): string => `10.0.0.${++ipCount}`;

async function post(
  url: string,
  key: string | null,
  body: string | undefined,
  contentType: string | null = 'application/json',
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (contentType) headers['content-type'] = contentType;
  const res = await t.app.http.inject({
    method: 'POST',
    url,
    headers,
    ...(body !== undefined ? { payload: body } : {}),
  });
  if (url.startsWith('/api/v1/')) contract.check(url, res, 'post');
  return res;
}

async function balance(
  key: string,
): Promise<{ balance: number; monthly_remaining: number; packs_remaining: number; overage_unbilled: number }> {
  const res = await t.get(BALANCE, key);
  contract.check(BALANCE, res);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** The balance over HTTP equals the signed sum of the ledger, and every counter agrees with it. */
async function balanceMatchesLedger(ws: string, key: string) {
  const b = await balance(key);
  const check = await ledgerCheck(t.db.pool, ws);
  assert.ok(check.consistent, `counters disagree with the ledger: ${JSON.stringify(check)}`);
  assert.equal(b.balance, check.balance, `balance ${b.balance} is not the ledger's sum ${check.balance}`);
  assert.deepEqual(
    [b.monthly_remaining, b.packs_remaining, b.overage_unbilled],
    [check.monthly_remaining, check.packs_remaining, check.overage_unbilled],
  );
  return b;
}

const page = (pathname: string, ip: string, method: 'GET' | 'POST' = 'GET') =>
  t.app.http.inject({
    method,
    url: pathname,
    remoteAddress: ip,
    ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' } : {}),
  });

/** Starts a checkout over HTTP; returns the checkout page's path. */
async function startCheckout(key: string, slug: PackSlug): Promise<string> {
  const res = await post(CHECKOUT, key, JSON.stringify({ slug }));
  assert.equal(res.statusCode, 200, res.body);
  const url = new URL(res.json().data.url);
  assert.equal(url.origin, t.config.billing.publicBaseUrl);
  assert.match(url.pathname, /^\/checkout\/chk_[0-9A-Za-z]{32}$/);
  return url.pathname;
}

const ledgerKinds = async (ws: string): Promise<Array<{ kind: string; amount: number }>> =>
  (await t.db.pool.query('SELECT kind, amount FROM credit_ledger WHERE workspace_id = $1 ORDER BY id', [ws])).rows;

const packsOf = async (ws: string) =>
  (
    await t.db.pool.query<{ slug: string; credits: number; remaining: number; expires_at: Date; checkout_id: string }>(
      'SELECT slug, credits, remaining, expires_at, checkout_id FROM credit_packs WHERE workspace_id = $1 ORDER BY id',
      [ws],
    )
  ).rows;

/**
 * `credits` overage credits used at `at`, written as the gate writes them (ledger entries in the
 * overage pool and the counter, together): reaching 10,000 overage credits by requests would take
 * 10,000 requests, and it is the job under test here, not the gate.
 */
async function accrue(ws: string, credits: number, at: string): Promise<void> {
  await t.db.pool.query(
    `INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount) VALUES ($1, $2, 'overage', 'overage', $3)`,
    [ws, at, -credits],
  );
  await t.db.pool.query('UPDATE workspaces SET overage_unbilled = overage_unbilled + $2 WHERE id = $1', [ws, credits]);
}

const runAt = (job: Job, asOf: string) =>
  runJob(job, { pool: t.db.pool, config: t.config, clock: t.clock, asOf: new Date(asOf), log: () => {} }, 'manual');

const itemsOf = async (ws: string) =>
  (
    await t.db.pool.query<{ day: string; credits: number; amount_cents: number }>(
      'SELECT day::text, credits, amount_cents FROM invoice_items WHERE workspace_id = $1 ORDER BY day',
      [ws],
    )
  ).rows;

describe('credit packs through the local checkout', () => {
  it('each pack, bought end to end over HTTP, grants its credits once', async () => {
    const { workspace, key } = await t.workspace('developer', 'Acme <Research> & Co');
    const ip = newIp();
    let expected = (await balanceMatchesLedger(workspace.id, key.key)).balance;
    for (const slug of ['starter', 'investigator', 'bulk', 'power'] as const) {
      const pathname = await startCheckout(key.key, slug);
      const shown = await page(pathname, ip);
      assert.equal(shown.statusCode, 200);
      assert.match(String(shown.headers['content-type']), /^text\/html/);
      assert.equal(shown.headers['cache-control'], 'no-store');
      assert.equal(shown.headers['x-frame-options'], 'DENY');
      assert.ok(shown.body.includes(formatUsd(PACKS[slug].priceCents)), `price missing: ${shown.body}`);
      assert.ok(shown.body.includes(PACKS[slug].credits.toLocaleString('en-US')));
      assert.ok(
        shown.body.includes('Acme &lt;Research&gt; &amp; Co') && !shown.body.includes('<Research>'),
        'the workspace name is shown, escaped',
      );
      assert.ok(shown.body.includes(`action="${pathname.split('/').pop()}/complete"`));
      assert.equal((await balance(key.key)).balance, expected, 'nothing is granted before the payment');

      const paid = await page(`${pathname}/complete`, ip, 'POST');
      assert.equal(paid.statusCode, 303);
      assert.equal(paid.headers.location, `${t.config.billing.publicBaseUrl}${pathname}`);
      expected += PACKS[slug].credits;
      assert.equal((await balanceMatchesLedger(workspace.id, key.key)).balance, expected);
      assert.match((await page(pathname, ip)).body, /Paid on .*credits were added/);
      // Completing again (a reload, a double click) grants nothing more.
      assert.equal((await page(`${pathname}/complete`, ip, 'POST')).statusCode, 303);
      assert.equal((await balanceMatchesLedger(workspace.id, key.key)).balance, expected);
    }
    const packs = await packsOf(workspace.id);
    assert.deepEqual(
      packs.map((p) => [p.slug, p.credits]),
      [
        ['starter', 1_000],
        ['investigator', 5_000],
        ['bulk', 25_000],
        ['power', 100_000],
      ],
    );
    // 12 months after purchase, 00:00 UTC on the anniversary.
    for (const p of packs) assert.equal(p.expires_at.toISOString(), '2027-03-10T00:00:00.000Z');
    assert.deepEqual(
      (await ledgerKinds(workspace.id)).filter((e) => e.kind === 'pack_purchase').map((e) => e.amount),
      [1_000, 5_000, 25_000, 100_000],
    );
    const checkouts = (
      await t.db.pool.query(
        'SELECT slug, provider, status, amount_cents, paid_at IS NOT NULL AS paid ' +
          'FROM checkouts WHERE workspace_id = $1 ORDER BY created_at, slug',
        [workspace.id],
      )
    ).rows;
    assert.deepEqual(checkouts.map((c) => [c.slug, c.provider, c.status, c.amount_cents, c.paid]).sort(), [
      ['bulk', 'local', 'paid', 9_900, true],
      ['investigator', 'local', 'paid', 2_300, true],
      ['power', 'local', 'paid', 34_900, true],
      ['starter', 'local', 'paid', 500, true],
    ]);
  });

  it('10 concurrent completions of one checkout grant the pack once', async () => {
    const { workspace, key } = await t.workspace('pro');
    const ip = newIp();
    const pathname = await startCheckout(key.key, 'investigator');
    const before = (await balance(key.key)).balance;
    const answers = await Promise.all(Array.from({ length: 10 }, () => page(`${pathname}/complete`, ip, 'POST')));
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      Array(10).fill(303),
    );
    assert.equal((await packsOf(workspace.id)).length, 1);
    assert.equal((await ledgerKinds(workspace.id)).filter((e) => e.kind === 'pack_purchase').length, 1);
    assert.equal((await balanceMatchesLedger(workspace.id, key.key)).balance, before + 5_000);
  });

  it('refuses bad requests with 400 in the envelope, changing nothing', async () => {
    const { workspace, key } = await t.workspace('developer');
    const cases: Array<[string, string | undefined, string | null, string]> = [
      ['another content type', '{"slug":"starter"}', 'text/plain', 'content-type'],
      ['a form', 'slug=starter', 'application/x-www-form-urlencoded', 'content-type'],
      ['no content type', '{"slug":"starter"}', null, 'content-type'],
      ['no body', undefined, 'application/json', 'body'],
      ['not JSON', '{slug: starter}', 'application/json', 'body'],
      ['missing slug', '{}', 'application/json', 'slug'],
      ['unknown slug', '{"slug":"gold"}', 'application/json', 'slug'],
      ['slug of another type', '{"slug":1000}', 'application/json', 'slug'],
      ['extra junk', '{"slug":"starter","credits":1000000}', 'application/json', 'credits'],
      ['an array', '["starter"]', 'application/json', '(request)'],
    ];
    for (const [what, body, type, param] of cases) {
      const res = await post(CHECKOUT, key.key, body, type);
      assert.equal(res.statusCode, 400, what);
      const { error } = res.json();
      assert.equal(error.code, 'bad_request', what);
      assert.ok(error.details?.[param], `${what}: details name ${param}: ${res.body}`);
      assert.equal(error.request_id, res.headers['x-request-id']);
    }
    const query = await post(`${CHECKOUT}?slug=starter`, key.key, '{"slug":"starter"}');
    assert.equal(query.statusCode, 400);
    assert.equal(query.json().error.details.slug, 'unknown parameter');
    const balanceQuery = await t.get(`${BALANCE}?verbose=1`, key.key);
    assert.equal(balanceQuery.statusCode, 400);
    assert.equal(balanceQuery.json().error.details.verbose, 'unknown parameter');
    // `api_key` in the query is dropped unread, as on every route.
    assert.equal((await t.get(`${BALANCE}?api_key=${key.key}`, key.key)).statusCode, 200);
    assert.equal(
      (await t.db.pool.query('SELECT count(*)::int AS n FROM checkouts WHERE workspace_id = $1', [workspace.id]))
        .rows[0].n,
      0,
    );
    assert.equal((await balanceMatchesLedger(workspace.id, key.key)).balance, 10_000);
  });

  it('an expired checkout cannot be completed; unknown checkouts are 404 pages', async () => {
    const { workspace, key } = await t.workspace('developer');
    const ip = newIp();
    const pathname = await startCheckout(key.key, 'starter');
    t.clock.advance(DAY);
    const late = await page(`${pathname}/complete`, ip, 'POST');
    assert.equal(late.statusCode, 410);
    assert.match(late.body, /expired/);
    assert.equal((await packsOf(workspace.id)).length, 0);
    t.clock.set(START);
    for (const p of [`/checkout/chk_${'A'.repeat(32)}`, '/checkout/chk_short', '/checkout/%3Cscript%3E']) {
      assert.equal((await page(p, ip)).statusCode, 404, p);
      assert.equal((await page(`${p}/complete`, ip, 'POST')).statusCode, 404, p);
    }
  });

  it('limits the checkout pages per client address like the keyless routes', async () => {
    const { key } = await t.workspace('developer');
    const ip = newIp();
    const pathname = await startCheckout(key.key, 'starter');
    for (let i = 0; i < 30; i++) assert.equal((await page(pathname, ip)).statusCode, 200);
    const refused = await page(pathname, ip);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
  });
});

describe('the billing routes', () => {
  it('are authenticated like every route: the same 401 body with WWW-Authenticate: Bearer', async () => {
    const { workspace, key } = await t.workspace('pro');
    const revoked = await createKey(t.db.pool, workspace.id, 'live', PEPPER, t.clock);
    await revokeKey(t.db.pool, revoked.id, t.clock);
    const suspended = await t.workspace('pro');
    await setSuspended(t.db.pool, suspended.workspace.id, true);
    const reference = (await t.get(METERED)).json();
    const expected = JSON.stringify({ ...reference, error: { ...reference.error, request_id: '' } });
    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['malformed', { authorization: 'Bearer svc_live_short' }],
      ['unknown', { authorization: `Bearer svc_live_${'A'.repeat(32)}` }],
      ['revoked', { authorization: `Bearer ${revoked.key}` }],
      ['suspended', { 'x-api-key': suspended.key.key }],
      ['both headers differing', { authorization: `Bearer ${key.key}`, 'x-api-key': revoked.key }],
    ];
    for (const [what, headers] of cases) {
      for (const [method, url] of [
        ['GET', BALANCE],
        ['POST', CHECKOUT],
      ] as const) {
        const res = await t.app.http.inject({
          method,
          url,
          headers: { ...headers, 'content-type': 'application/json' },
          ...(method === 'POST' ? { payload: '{"slug":"starter"}' } : {}),
        });
        assert.equal(res.statusCode, 401, `${what} ${method}`);
        assert.equal(res.headers['www-authenticate'], 'Bearer');
        const body = res.json();
        assert.equal(
          JSON.stringify({ ...body, error: { ...body.error, request_id: '' } }),
          expected,
          `${what} ${method}`,
        );
        contract.check(url, res, method === 'GET' ? 'get' : 'post');
      }
    }
    // The accepted forms.
    for (const headers of [{ 'x-api-key': key.key }, { authorization: `bearer ${key.key}` }]) {
      assert.equal((await t.app.http.inject({ method: 'GET', url: BALANCE, headers })).statusCode, 200);
    }
    assert.equal(
      (await t.db.pool.query('SELECT count(*)::int AS n FROM checkouts WHERE workspace_id = $1', [workspace.id]))
        .rows[0].n,
      0,
    );
  });

  it("are free, and share the workspace's per-minute window with the other routes", async () => {
    const { workspace, key } = await t.workspace('developer');
    await setPerMinute(t.db.pool, workspace.id, 4);
    const before = await ledgerCheck(t.db.pool, workspace.id);
    const ok = await t.get(BALANCE, key.key);
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['x-ratelimit-limit'], '4');
    assert.equal(ok.headers['x-ratelimit-remaining'], '3');
    assert.match(String(ok.headers.ratelimit), /^"default";r=3;t=\d+$/);
    assert.equal((await post(CHECKOUT, key.key, '{"slug":"starter"}')).headers['x-ratelimit-remaining'], '2');
    assert.equal((await t.get(METERED, key.key)).headers['x-ratelimit-remaining'], '1');
    assert.equal((await post(CHECKOUT, key.key, '{"slug":"bulk"}')).statusCode, 200);
    for (const res of [await t.get(BALANCE, key.key), await post(CHECKOUT, key.key, '{"slug":"starter"}')]) {
      assert.equal(res.statusCode, 429);
      assert.equal(res.json().error.code, 'rate_limited');
      assert.match(res.json().error.message, /Retry in \d+ seconds/);
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.equal(res.headers['x-ratelimit-remaining'], '0');
    }
    // Only the data route cost a credit; the usage report does not count billing calls either.
    const after = await ledgerCheck(t.db.pool, workspace.id);
    assert.equal(after.monthly_remaining, before.monthly_remaining - 1);
    await t.app.requestLog.flush();
    const logged = (
      await t.db.pool.query(
        'SELECT route, status, credits FROM request_logs WHERE workspace_id = $1 ORDER BY at, route',
        [workspace.id],
      )
    ).rows;
    assert.ok(logged.some((r) => r.route === BALANCE && r.credits === 0));
    assert.ok(logged.some((r) => r.route === CHECKOUT && r.status === 429));
  });

  it('live under the proxy prefix only', async () => {
    const { key } = await t.workspace('developer');
    assert.equal((await t.get('/v1/billing/balance', key.key)).statusCode, 404);
    assert.equal(
      (
        await t.app.http.inject({
          method: 'POST',
          url: '/v1/billing/checkout-credit-pack',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          payload: '{"slug":"starter"}',
        })
      ).statusCode,
      404,
    );
    // Stripe's webhook exists only with the Stripe provider.
    assert.equal(
      (
        await t.app.http.inject({
          method: 'POST',
          url: '/webhooks/stripe',
          headers: { 'content-type': 'application/json' },
          payload: '{}',
        })
      ).statusCode,
      404,
    );
    const doc = (await t.get('/v1/openapi.json')).json();
    assert.deepEqual(doc.paths['/billing/checkout-credit-pack'].servers, [{ url: '/api/v1' }]);
    assert.deepEqual(doc.paths['/billing/balance'].servers, [{ url: '/api/v1' }]);
    assert.deepEqual(doc.paths['/billing/checkout-credit-pack'].post.requestBody.content['application/json'].schema, {
      $ref: '#/components/schemas/CheckoutCreditPackRequest',
    });
    assert.deepEqual(doc.components.schemas.CheckoutCreditPackRequest.properties.slug.enum, [
      'starter',
      'investigator',
      'bulk',
      'power',
    ]);
  });

  it('sell packs to every plan, an MCP-only one included', async () => {
    const { workspace, key } = await t.workspace('mcp_starter');
    assert.equal((await t.get(METERED, key.key)).statusCode, 403); // no REST data for this plan
    const pathname = await startCheckout(key.key, 'starter');
    assert.equal((await page(`${pathname}/complete`, newIp(), 'POST')).statusCode, 303);
    assert.equal((await balanceMatchesLedger(workspace.id, key.key)).packs_remaining, 1_000);
    const trial = await t.workspace('free_trial');
    assert.equal((await post(CHECKOUT, trial.key.key, '{"slug":"power"}')).statusCode, 200);
  });
});

describe('balance', () => {
  it("is the ledger's signed sum through spending, packs, overage, invoicing and payment", async () => {
    const { workspace, key } = await t.workspace('developer');
    await adjustCredits(t.db.pool, workspace.id, -9_999, 'test: one left', t.clock);
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: 1,
      monthly_remaining: 1,
      packs_remaining: 0,
      overage_unbilled: 0,
    });
    for (let i = 0; i < 3; i++) assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: -2,
      monthly_remaining: 0,
      packs_remaining: 0,
      overage_unbilled: 2,
    });

    const pathname = await startCheckout(key.key, 'starter');
    await page(`${pathname}/complete`, newIp(), 'POST');
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: 998,
      monthly_remaining: 0,
      packs_remaining: 1_000,
      overage_unbilled: 2,
    });

    // Billed, the overage is still owed: the balance stays down until the invoice is paid.
    await billOverage(t.db.pool, new Date('2026-03-11T01:00:00Z'), t.clock.now());
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: 998,
      monthly_remaining: 0,
      packs_remaining: 1_000,
      overage_unbilled: 0,
    });
    const [invoice] = await listInvoices(t.db.pool, workspace.id);
    assert.equal(invoice!.status, 'open');
    await assert.rejects(markInvoicePaid(t.db.pool, invoice!.id, t.clock.now(), 'test'), /still open/);
    await billOverage(t.db.pool, new Date('2026-04-01T01:00:00Z'), t.clock.now()); // March is over: issued
    assert.equal((await listInvoices(t.db.pool, workspace.id))[0]!.status, 'issued');
    assert.deepEqual(await markInvoicePaid(t.db.pool, invoice!.id, t.clock.now(), 'bank transfer'), {
      id: invoice!.id,
      items_paid: 1,
    });
    assert.equal((await listInvoices(t.db.pool, workspace.id))[0]!.status, 'paid');
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: 1_000,
      monthly_remaining: 0,
      packs_remaining: 1_000,
      overage_unbilled: 0,
    });
    await assert.rejects(markInvoicePaid(t.db.pool, invoice!.id, t.clock.now(), 'again'), /already paid/);
    assert.deepEqual(
      (await ledgerKinds(workspace.id)).filter((e) => e.kind === 'overage_payment'),
      [{ kind: 'overage_payment', amount: 2 }],
    );
  });
});

describe('refunds', () => {
  const buy = async (key: string, slug: PackSlug): Promise<string> => {
    const pathname = await startCheckout(key, slug);
    await page(`${pathname}/complete`, newIp(), 'POST');
    return pathname.split('/').pop()!;
  };

  it('refunds a pack within 14 days if at most 10% is used, with ledger entries; else refuses, says why', async () => {
    const { workspace, key } = await t.workspace('developer');
    await adjustCredits(t.db.pool, workspace.id, -10_000, 'test: spend packs', t.clock);
    await setPerMinute(t.db.pool, workspace.id, 1_000);
    const local = new LocalPayments(t.config.billing.publicBaseUrl);

    const tenPercent = await buy(key.key, 'starter');
    for (let i = 0; i < 100; i++) assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    t.clock.advance(13 * DAY);
    const refund = await refundCheckout(t.db.pool, local, tenPercent, t.clock.now());
    assert.deepEqual(
      [refund.credits_removed, refund.credits_used, refund.amount_cents, refund.refund_ref, refund.checkout.status],
      [900, 100, 500, null, 'refunded'],
    );
    assert.deepEqual(
      (await ledgerKinds(workspace.id)).filter((e) => e.kind === 'pack_refund'),
      [{ kind: 'pack_refund', amount: -900 }],
    );
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: 0,
      monthly_remaining: 0,
      packs_remaining: 0,
      overage_unbilled: 0,
    });
    await assert.rejects(refundCheckout(t.db.pool, local, tenPercent, t.clock.now()), /already refunded/);

    const overTen = await buy(key.key, 'starter');
    for (let i = 0; i < 101; i++) assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    await assert.rejects(
      refundCheckout(t.db.pool, local, overTen, t.clock.now()),
      /101 of the pack's 1000 credits are used \(10\.1%\).*no more than 10%/,
    );

    const unused = await buy(key.key, 'investigator');
    t.clock.advance(14 * DAY);
    await assert.rejects(
      refundCheckout(t.db.pool, local, unused, t.clock.now()),
      /refundable within 14 days of purchase/,
    );

    const open = (await startCheckout(key.key, 'bulk')).split('/').pop()!;
    await assert.rejects(refundCheckout(t.db.pool, local, open, t.clock.now()), /never paid/);
    await assert.rejects(refundCheckout(t.db.pool, local, 'chk_nope', t.clock.now()), /no checkout chk_nope/);
    await balanceMatchesLedger(workspace.id, key.key);
    t.clock.set(START);
  });

  it('`registry credits refund CHECKOUT --json` refunds, and refuses with the reason', async () => {
    const { workspace, key } = await t.workspace('developer');
    const id = await buy(key.key, 'starter');
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/cli/main.ts'), ...args], {
        cwd: projectRoot,
        env: { ...process.env, DATABASE_URL: t.db.url, LOG_LEVEL: 'silent' },
      }).then(
        (r) => ({ code: 0, out: JSON.parse(r.stdout) }),
        (e: { code: number; stdout: string }) => ({ code: e.code, out: JSON.parse(e.stdout) }),
      );
    // The CLI runs on the system clock: the purchase was "just now" for it only if paid_at is recent.
    await t.db.pool.query('UPDATE checkouts SET paid_at = now() WHERE id = $1', [id]);
    const done = await cli(['credits', 'refund', id, '--json']);
    assert.equal(done.code, 0, JSON.stringify(done.out));
    assert.deepEqual(
      [done.out.credits_removed, done.out.amount_cents, done.out.checkout.status],
      [1_000, 500, 'refunded'],
    );
    const refused = await cli(['credits', 'refund', id, '--json']);
    assert.equal(refused.code, 1);
    assert.match(refused.out.error, /already refunded/);
    await balanceMatchesLedger(workspace.id, key.key);
  });
});

describe('pack expiry', () => {
  it('a pack expires at 00:00 UTC on its anniversary, with a ledger entry, and is no longer spendable', async () => {
    const { workspace, key } = await t.workspace('free_trial');
    await adjustCredits(t.db.pool, workspace.id, -500, 'test: trial used up', t.clock);
    assert.equal((await t.get(METERED, key.key)).statusCode, 402);
    const pathname = await startCheckout(key.key, 'starter');
    await page(`${pathname}/complete`, newIp(), 'POST');
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);

    t.clock.set('2027-03-09T23:59:59.999Z');
    assert.deepEqual((await runAt(packExpiryJob, '2027-03-09T23:59:59.999Z')).counts, { expired: 0 });
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.equal((await balanceMatchesLedger(workspace.id, key.key)).packs_remaining, 998);

    t.clock.set('2027-03-10T00:00:00Z');
    const run = await runAt(packExpiryJob, '2027-03-10T00:00:00Z');
    assert.equal(run.status, 'succeeded');
    assert.ok(Number(run.counts.expired) >= 1);
    const entry = (
      await t.db.pool.query(
        `SELECT at, amount, pack_id IS NOT NULL AS has_pack
         FROM credit_ledger WHERE workspace_id = $1 AND kind = 'pack_expiry'`,
        [workspace.id],
      )
    ).rows;
    assert.deepEqual(entry, [{ at: new Date('2027-03-10T00:00:00Z'), amount: -998, has_pack: true }]);
    assert.equal((await t.get(METERED, key.key)).statusCode, 402);
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: 0,
      monthly_remaining: 0,
      packs_remaining: 0,
      overage_unbilled: 0,
    });
    assert.deepEqual((await runAt(packExpiryJob, '2027-03-10T00:00:00Z')).counts, { expired: 0 });
    t.clock.set(START);
  });
});

describe('overage invoicing', () => {
  it('prices 1, 100, 1,001 and 10,000 credits at 0.05, 0.50, 5.05 and 50.00 USD; a rerun adds nothing', async () => {
    assert.deepEqual([1, 100, 1_001, 10_000].map(overageAmountCents), [5, 50, 505, 5_000]);
    const figures = [1, 100, 1_001, 10_000];
    const workspaces: string[] = [];
    for (const credits of figures) {
      const { workspace } = await t.workspace('growth');
      await accrue(workspace.id, credits, '2026-03-10T15:00:00Z');
      workspaces.push(workspace.id);
    }
    for (let run = 0; run < 2; run++) {
      const r = await runAt(overageBillingJob, '2026-03-11T01:00:00Z');
      assert.equal(r.status, 'succeeded', String(r.error));
      for (const [i, ws] of workspaces.entries()) {
        const items = await itemsOf(ws);
        assert.deepEqual(items, [
          { day: '2026-03-10', credits: figures[i], amount_cents: overageAmountCents(figures[i]!) },
        ]);
        assert.ok((await ledgerCheck(t.db.pool, ws)).consistent);
      }
    }
    assert.deepEqual(await Promise.all(workspaces.map(async (ws) => formatUsd((await itemsOf(ws))[0]!.amount_cents))), [
      '$0.05',
      '$0.50',
      '$5.05',
      '$50.00',
    ]);
    // A day that is not over is not billed, and running for an earlier date changes nothing.
    await runAt(overageBillingJob, '2026-03-10T01:00:00Z');
    assert.equal((await itemsOf(workspaces[0]!)).length, 1);
  });

  it('bills each day on its own item from real requests, catching up days the job missed', async () => {
    const { workspace, key } = await t.workspace('developer');
    await adjustCredits(t.db.pool, workspace.id, -10_000, 'test: into overage', t.clock);
    const at = async (when: string, n: number) => {
      t.clock.set(when);
      for (let i = 0; i < n; i++) assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    };
    await at('2026-03-10T15:00:00Z', 2);
    await at('2026-03-11T00:30:00Z', 1); // before the 01:00 run: tomorrow's item
    await runAt(overageBillingJob, '2026-03-11T01:00:00Z');
    assert.deepEqual(await itemsOf(workspace.id), [{ day: '2026-03-10', credits: 2, amount_cents: 5 }]);
    assert.equal((await balanceMatchesLedger(workspace.id, key.key)).overage_unbilled, 1);
    await at('2026-03-11T18:00:00Z', 3);
    await at('2026-03-12T09:00:00Z', 4);
    await at('2026-03-13T00:10:00Z', 1);
    // The runs of the 12th and 13th never happened; the 14th's bills both days, each on its own.
    await runAt(overageBillingJob, '2026-03-14T01:00:00Z');
    assert.deepEqual(await itemsOf(workspace.id), [
      { day: '2026-03-10', credits: 2, amount_cents: 5 },
      { day: '2026-03-11', credits: 4, amount_cents: 5 },
      { day: '2026-03-12', credits: 4, amount_cents: 5 },
      { day: '2026-03-13', credits: 1, amount_cents: 5 },
    ]);
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: -11,
      monthly_remaining: 0,
      packs_remaining: 0,
      overage_unbilled: 0,
    });
    t.clock.set(START);
  });

  it("attaches items to the month's open invoice, issued when the month is over", async () => {
    const { workspace } = await t.workspace('pro');
    await accrue(workspace.id, 10, '2026-03-30T10:00:00Z');
    await accrue(workspace.id, 20, '2026-03-31T10:00:00Z');
    await accrue(workspace.id, 30, '2026-04-01T00:20:00Z');
    await runAt(overageBillingJob, '2026-03-31T01:00:00Z');
    assert.deepEqual(
      (await listInvoices(t.db.pool, workspace.id)).map((v) => [v.period_start, v.status, v.credits]),
      [['2026-03-01', 'open', 10]],
    );
    await runAt(overageBillingJob, '2026-04-01T01:00:00Z');
    assert.deepEqual(
      (await listInvoices(t.db.pool, workspace.id)).map((v) => [v.period_start, v.status, v.credits, v.amount_cents]),
      [['2026-03-01', 'issued', 30, 15]],
    );
    await runAt(overageBillingJob, '2026-04-02T01:00:00Z');
    const invoices = await listInvoices(t.db.pool, workspace.id);
    assert.deepEqual(
      invoices.map((v) => [v.period_start, v.status, v.credits]),
      [
        ['2026-03-01', 'issued', 30],
        ['2026-04-01', 'open', 30],
      ],
    );
    assert.deepEqual(
      invoices[1]!.items.map((i) => [i.day, i.credits, i.amount_cents]),
      [['2026-04-01', 30, 15]],
    );
  });

  it('on cancellation, a final invoice carries what accrued; then no overage and no new grant', async () => {
    t.clock.set('2026-03-08T12:00:00Z');
    const { workspace, key } = await t.workspace('developer');
    await adjustCredits(t.db.pool, workspace.id, -10_000, 'test: into overage', t.clock);
    await accrue(workspace.id, 1_001, '2026-03-09T10:00:00Z');
    t.clock.set('2026-03-10T12:00:00Z');
    assert.equal((await t.get(METERED, key.key)).statusCode, 200); // one more today
    const cancellation = await cancelSubscription(t.db.pool, workspace.id, t.clock.now(), OPERATOR);
    assert.equal(cancellation.workspace.subscription_status, 'cancelled');
    assert.deepEqual(
      cancellation.items.map((i) => [i.day, i.credits, i.amount_cents]),
      [
        ['2026-03-09', 1_001, 505],
        ['2026-03-10', 1, 5],
      ],
    );
    const [final] = await listInvoices(t.db.pool, workspace.id);
    assert.deepEqual(
      [final!.id, final!.status, final!.final, final!.amount_cents],
      [cancellation.final_invoice, 'issued', true, 510],
    );
    await assert.rejects(cancelSubscription(t.db.pool, workspace.id, t.clock.now(), OPERATOR), /already cancelled/);

    // No overage after cancellation: with nothing left, 402 (a pack or a new subscription helps).
    const refused = await t.get(METERED, key.key);
    assert.equal(refused.statusCode, 402);
    assert.match(refused.json().error.message, /cancelled/);
    assert.deepEqual(await balanceMatchesLedger(workspace.id, key.key), {
      balance: -1_002,
      monthly_remaining: 0,
      packs_remaining: 0,
      overage_unbilled: 0,
    });
    // The job finds nothing more to bill, and the next cycle grants nothing.
    await runAt(overageBillingJob, '2026-03-11T01:00:00Z');
    assert.equal((await itemsOf(workspace.id)).length, 2);
    await runAt(cycleJob, '2026-04-01T00:00:00Z');
    t.clock.set('2026-04-01T08:00:00Z');
    assert.equal((await balanceMatchesLedger(workspace.id, key.key)).monthly_remaining, 0);

    // Subscribing again: overage accrues again, and the following cycle grants.
    await setStatus(t.db.pool, workspace.id, 'active');
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.equal((await balanceMatchesLedger(workspace.id, key.key)).overage_unbilled, 1);
    await runAt(cycleJob, '2026-05-01T00:00:00Z');
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining, 10_000);
    t.clock.set(START);
  });

  it('a past_due subscription accrues no overage, and what it owes is still billed', async () => {
    const { workspace, key } = await t.workspace('developer');
    await adjustCredits(t.db.pool, workspace.id, -10_000, 'test: into overage', t.clock);
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    await setStatus(t.db.pool, workspace.id, 'past_due');
    assert.equal((await t.get(METERED, key.key)).statusCode, 429);
    await runAt(overageBillingJob, '2026-03-11T01:00:00Z');
    assert.deepEqual(await itemsOf(workspace.id), [{ day: '2026-03-10', credits: 1, amount_cents: 5 }]);
  });
});

describe('jobs', () => {
  it('every job of the operations list is scheduled (UTC) and recorded when run', async () => {
    const schedules = Object.fromEntries(JOBS.map((j) => [j.name, j.schedule]));
    assert.equal(schedules.pack_expiry, '0 0 * * *');
    assert.equal(schedules.overage_billing, '0 1 * * *');
    for (const name of ['cycle', 'log_purge', 'pack_expiry', 'overage_billing'])
      assert.ok(schedules[name], `missing job ${name}`);
    const runs = (
      await t.db.pool.query(
        `SELECT job, status, counts FROM job_runs WHERE job IN ('pack_expiry', 'overage_billing') ORDER BY id`,
      )
    ).rows;
    assert.ok(runs.length > 0 && runs.every((r) => r.status === 'succeeded'));
    assert.ok(runs.some((r) => r.job === 'overage_billing' && 'items' in r.counts && 'amount_cents' in r.counts));
  });
});

describe('configuration', () => {
  it('chooses the provider and the public address of the checkout pages', () => {
    assert.deepEqual(loadConfig({}).billing, {
      provider: 'local',
      stripeSecretKey: '',
      stripeWebhookSecret: '',
      publicBaseUrl: 'http://127.0.0.1:3000',
      seller: { name: 'Registry Lookup', address: null, taxId: null, email: null },
    });
    // The seller of the documents: an address's `|` ends a line.
    assert.deepEqual(
      loadConfig({ SELLER_NAME: 'Lookup Inc.', SELLER_ADDRESS: '1 Bay St | Tampa, FL', SELLER_TAX_ID: '12-34' }).billing
        .seller,
      { name: 'Lookup Inc.', address: '1 Bay St\nTampa, FL', taxId: '12-34', email: null },
    );
    assert.equal(loadConfig({ HOST: '0.0.0.0', PORT: '8080' }).billing.publicBaseUrl, 'http://localhost:8080');
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: 'https://lookup.example.com/registry/' }).billing.publicBaseUrl,
      'https://lookup.example.com/registry',
    );
    assert.equal(
      loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }).billing.provider,
      'stripe',
    );
    assert.throws(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x' }), /STRIPE_WEBHOOK_SECRET is required/);
    assert.throws(() => loadConfig({ CHECKOUT_PROVIDER: 'stripe' }), /needs STRIPE_SECRET_KEY/);
    // In production the local page, which grants credits without taking money, must be asked for.
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/registry',
      API_KEY_PEPPER: 'pepper',
      SMTP_URL: 'smtp://mail.example.com:587',
      COMPANY_NAME: 'Example Data LLC',
      SUPPORT_EMAIL: 'support@example.com',
    };
    assert.throws(() => loadConfig(production), /CHECKOUT_PROVIDER=local/);
    assert.equal(loadConfig({ ...production, CHECKOUT_PROVIDER: 'local' }).billing.provider, 'local');
  });
});
