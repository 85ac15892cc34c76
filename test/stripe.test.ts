// The Stripe provider with the official package, offline: its HTTP client is a stub answering
// recorded API objects (test/fixtures/stripe), and webhook events are recorded payloads signed here
// with the package's own test-header helper. A tampered or unsigned event changes nothing.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { refundCheckout, startCheckout } from '../src/billing/checkouts.js';
import { billOverage, sendToProcessor } from '../src/billing/overage.js';
import { LocalPayments, type PaymentProvider } from '../src/billing/provider.js';
import { cancelSubscription, setProcessorCustomer } from '../src/billing/subscription.js';
import { testApp, type TestApp } from './support/app.js';
import { CUSTOMER, fixture, SECRET_KEY, sign, StripeStub, WEBHOOK_SECRET, type Json } from './support/stripe.js';

const START = '2026-03-10T12:00:00Z';

/** The recorded objects the stub answers with. */
let itemCount = 0;
const stub = new StripeStub({
  'POST /v1/checkout/sessions': (body) => {
    const session = fixture('checkout-session.json');
    const checkout = body.get('client_reference_id')!;
    return {
      ...session,
      id: sessionIdOf(checkout),
      client_reference_id: checkout,
      success_url: body.get('success_url'),
      cancel_url: body.get('cancel_url'),
      metadata: {
        checkout_id: checkout,
        slug: body.get('metadata[slug]'),
        workspace_id: body.get('metadata[workspace_id]'),
      },
    };
  },
  'POST /v1/invoiceitems': (body) => ({
    ...fixture('invoiceitem.json'),
    id: `ii_test${++itemCount}`,
    amount: Number(body.get('amount')),
    customer: body.get('customer'),
  }),
  'POST /v1/refunds': (body) => ({
    ...fixture('refund.json'),
    amount: Number(body.get('amount')),
    payment_intent: body.get('payment_intent'),
  }),
  'POST /v1/invoices': (body) => ({ ...fixture('invoice.json'), customer: body.get('customer') }),
});
const sent = stub.sent;
const sessionIdOf = (checkout: string): string => `cs_test_a1${checkout.slice(4)}`;

let t: TestApp;
let stripe: PaymentProvider;

before(async () => {
  t = await testApp({
    now: START,
    env: {
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PUBLIC_BASE_URL: 'https://lookup.example.com/',
    },
    payments: (config) => (stripe = stub.provider(config)),
  });
});
after(() => t.close());

const lastSent = (p: string) => stub.lastSent(p);

async function checkout(key: string, slug = 'starter'): Promise<{ id: string; url: string }> {
  const res = await t.app.http.inject({
    method: 'POST',
    url: '/api/v1/billing/checkout-credit-pack',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ slug }),
  });
  assert.equal(res.statusCode, 200, res.body);
  const id = lastSent('/v1/checkout/sessions').body.get('client_reference_id')!;
  return { id, url: res.json().data.url };
}

/** The recorded event, about this run's checkout, as Stripe would send it. */
function completedEvent(checkoutId: string, workspaceId: string, changes: Json = {}): string {
  const event = fixture('checkout.session.completed.json');
  event.data.object = {
    ...event.data.object,
    id: sessionIdOf(checkoutId),
    client_reference_id: checkoutId,
    metadata: { ...event.data.object.metadata, checkout_id: checkoutId, workspace_id: workspaceId },
    ...changes,
  };
  if (changes.type) event.type = changes.type;
  // Each event Stripe sends has its own id (the service applies an id once): one per checkout and type.
  const kind = ['completed', 'async', 'expired'].findIndex((k) => event.type.includes(k));
  event.id = `evt_${checkoutId.slice(4, 20)}${kind}`;
  return JSON.stringify(event, null, 2);
}

const deliver = (payload: string, signature: string | null): Promise<LightMyRequestResponse> =>
  t.app.http.inject({
    method: 'POST',
    url: '/webhooks/stripe',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature ? { 'stripe-signature': signature } : {}),
    },
    payload,
  });

const packsOf = async (ws: string) =>
  (await t.db.pool.query('SELECT slug, credits, remaining FROM credit_packs WHERE workspace_id = $1', [ws])).rows;
const balanceOf = async (ws: string): Promise<number> => (await ledgerCheck(t.db.pool, ws)).balance;
const checkoutRow = async (id: string) =>
  (await t.db.pool.query('SELECT provider, provider_ref, payment_ref, status FROM checkouts WHERE id = $1', [id]))
    .rows[0];

describe('stripe checkout', () => {
  it('starts a Checkout Session with the official package and answers its URL', async () => {
    const { workspace, key } = await t.workspace('developer');
    const { id, url } = await checkout(key.key, 'bulk');
    assert.equal(url, fixture('checkout-session.json').url);
    const s = lastSent('/v1/checkout/sessions');
    assert.equal(s.method, 'POST');
    assert.equal(s.headers.get('authorization'), 'Bearer sk_test_51Registry0Lookup0Stub');
    assert.equal(s.headers.get('idempotency-key'), `checkout-${id}`);
    assert.deepEqual(Object.fromEntries([...s.body].filter(([k]) => !k.includes('product_data'))), {
      mode: 'payment',
      client_reference_id: id,
      'metadata[checkout_id]': id,
      'metadata[workspace_id]': workspace.id,
      'metadata[slug]': 'bulk',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '9900',
      customer_creation: 'always',
      success_url: `https://lookup.example.com/checkout/${id}`,
      cancel_url: `https://lookup.example.com/checkout/${id}`,
    });
    assert.deepEqual(await checkoutRow(id), {
      provider: 'stripe',
      provider_ref: sessionIdOf(id),
      payment_ref: null,
      status: 'open',
    });
    // With Stripe configured there is no local completion route at all.
    assert.equal((await t.app.http.inject({ method: 'POST', url: `/checkout/${id}/complete` })).statusCode, 404);
    assert.match(
      (await t.app.http.inject({ method: 'GET', url: `/checkout/${id}` })).body,
      /Waiting for the payment to be confirmed/,
    );
  });

  it('a local checkout left from before Stripe was configured cannot be completed for free', async () => {
    const { workspace } = await t.workspace('developer');
    // Created while the local provider was configured (the same database, another configuration).
    const local = await startCheckout(
      t.db.pool,
      new LocalPayments('http://127.0.0.1:3000'),
      workspace.id,
      'bulk',
      t.clock.now(),
    );
    const id = local.url.split('/').at(-1)!;
    const before = await balanceOf(workspace.id);
    const completed = await t.app.http.inject({ method: 'POST', url: `/checkout/${id}/complete` });
    assert.equal(completed.statusCode, 404);
    assert.equal(completed.json().error.code, 'not_found');
    assert.equal(await balanceOf(workspace.id), before);
    assert.equal((await checkoutRow(id)).status, 'open');
    assert.match((await t.app.http.inject({ method: 'GET', url: `/checkout/${id}` })).body, /can no longer be paid/);
  });

  it('a signed checkout.session.completed grants the pack once, however often it is delivered', async () => {
    const { workspace, key } = await t.workspace('developer');
    const { id } = await checkout(key.key);
    const payload = completedEvent(id, workspace.id);
    const signature = sign(payload);
    const first = await deliver(payload, signature);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { received: true });
    const replays = await Promise.all(Array.from({ length: 5 }, () => deliver(payload, sign(payload))));
    assert.deepEqual(
      replays.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    assert.deepEqual(await packsOf(workspace.id), [{ slug: 'starter', credits: 1_000, remaining: 1_000 }]);
    assert.deepEqual(await checkoutRow(id), {
      provider: 'stripe',
      provider_ref: sessionIdOf(id),
      payment_ref: 'pi_3SxKpzLm3Np4Tx6W0a1b2c3d',
      status: 'paid',
    });
    assert.equal(
      (await t.db.pool.query('SELECT stripe_customer_id FROM workspaces WHERE id = $1', [workspace.id])).rows[0]
        .stripe_customer_id,
      CUSTOMER,
    );
    const check = await ledgerCheck(t.db.pool, workspace.id);
    assert.ok(check.consistent);
    assert.equal(check.packs_remaining, 1_000);

    // Its next checkout goes to the same Stripe customer.
    await checkout(key.key);
    assert.equal(lastSent('/v1/checkout/sessions').body.get('customer'), CUSTOMER);
    assert.equal(lastSent('/v1/checkout/sessions').body.get('customer_creation'), null);

    // The refund goes back through Stripe, for the payment of the checkout.
    const refund = await refundCheckout(t.db.pool, stripe, id, t.clock.now());
    assert.equal(refund.refund_ref, fixture('refund.json').id);
    const r = lastSent('/v1/refunds');
    assert.deepEqual(
      [r.body.get('payment_intent'), r.body.get('amount'), r.headers.get('idempotency-key')],
      ['pi_3SxKpzLm3Np4Tx6W0a1b2c3d', '500', `refund-${id}`],
    );
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).packs_remaining, 0);
  });

  it('refuses a tampered, unsigned, stale or wrongly signed event with 400, changing nothing', async () => {
    const { workspace, key } = await t.workspace('developer');
    const { id } = await checkout(key.key, 'power');
    const payload = completedEvent(id, workspace.id);
    const ledgerBefore = (await t.db.pool.query('SELECT count(*)::int AS n FROM credit_ledger')).rows[0].n;
    const cases: Array<[string, string, string | null]> = [
      ['tampered payload', payload.replace(`"amount_total": 500`, `"amount_total": 1`), sign(payload)],
      ['tampered session', completedEvent(id, workspace.id, { customer: 'cus_attacker' }), sign(payload)],
      ['no signature', payload, null],
      ['another secret', payload, sign(payload, 'whsec_not_ours')],
      [
        'stale signature (beyond the 5-minute tolerance)',
        payload,
        sign(payload, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 600),
      ],
      ['garbage signature', payload, 't=1,v1=00'],
    ];
    assert.notEqual(cases[0]![1], payload, 'the tampering changed the payload');
    for (const [what, body, signature] of cases) {
      const res = await deliver(body, signature);
      assert.equal(res.statusCode, 400, what);
      assert.equal(res.json().error.code, 'bad_request', what);
      assert.equal(res.json().error.request_id, res.headers['x-request-id']);
    }
    assert.deepEqual(await packsOf(workspace.id), []);
    assert.equal((await checkoutRow(id)).status, 'open');
    assert.equal((await t.db.pool.query('SELECT count(*)::int AS n FROM credit_ledger')).rows[0].n, ledgerBefore);
    assert.equal(
      (await t.db.pool.query('SELECT stripe_customer_id FROM workspaces WHERE id = $1', [workspace.id])).rows[0]
        .stripe_customer_id,
      null,
    );
    // The genuine event still fulfils.
    assert.equal((await deliver(payload, sign(payload))).statusCode, 200);
    assert.deepEqual(await packsOf(workspace.id), [{ slug: 'power', credits: 100_000, remaining: 100_000 }]);
  });

  it('a session completed unpaid waits for async_payment_succeeded; other events: acknowledged, ignored', async () => {
    const { workspace, key } = await t.workspace('pro');
    const { id } = await checkout(key.key, 'investigator');
    const unpaid = completedEvent(id, workspace.id, { payment_status: 'unpaid' });
    assert.equal((await deliver(unpaid, sign(unpaid))).statusCode, 200);
    assert.deepEqual(await packsOf(workspace.id), []);
    const expired = completedEvent(id, workspace.id, {
      type: 'checkout.session.expired',
      status: 'expired',
      payment_status: 'unpaid',
    });
    assert.equal((await deliver(expired, sign(expired))).statusCode, 200);
    assert.deepEqual(await packsOf(workspace.id), []);
    const succeeded = completedEvent(id, workspace.id, { type: 'checkout.session.async_payment_succeeded' });
    assert.equal((await deliver(succeeded, sign(succeeded))).statusCode, 200);
    assert.deepEqual(await packsOf(workspace.id), [{ slug: 'investigator', credits: 5_000, remaining: 5_000 }]);
  });
});

describe('stripe invoicing', () => {
  /** Overage used at `at`, written as the gate writes it (see billing.test.ts). */
  async function accrue(ws: string, credits: number, at: string): Promise<void> {
    await t.db.pool.query(
      `INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount) VALUES ($1, $2, 'overage', 'overage', $3)`,
      [ws, at, -credits],
    );
    await t.db.pool.query('UPDATE workspaces SET overage_unbilled = overage_unbilled + $2 WHERE id = $1', [
      ws,
      credits,
    ]);
  }

  it('sends each overage item to Stripe once, as a pending invoice item; a paid Stripe invoice pays it', async () => {
    const { workspace } = await t.workspace('developer');
    await setProcessorCustomer(t.db.pool, workspace.id, CUSTOMER);
    await accrue(workspace.id, 1_001, '2026-03-10T15:00:00Z');
    await billOverage(t.db.pool, new Date('2026-03-11T01:00:00Z'), t.clock.now());
    const before = sent.length;
    assert.deepEqual(await sendToProcessor(t.db.pool, stripe), { items_sent: 1, final_invoices_sent: 0 });
    assert.deepEqual(await sendToProcessor(t.db.pool, stripe), { items_sent: 0, final_invoices_sent: 0 });
    const requests = sent.slice(before);
    assert.equal(requests.length, 1);
    const item = (
      await t.db.pool.query('SELECT id, stripe_invoice_item_id FROM invoice_items WHERE workspace_id = $1', [
        workspace.id,
      ])
    ).rows[0];
    assert.deepEqual(
      [
        requests[0]!.path,
        requests[0]!.body.get('customer'),
        requests[0]!.body.get('amount'),
        requests[0]!.body.get('currency'),
        requests[0]!.body.get('metadata[invoice_item_id]'),
        requests[0]!.headers.get('idempotency-key'),
      ],
      ['/v1/invoiceitems', CUSTOMER, '505', 'usd', String(item.id), `overage-item-${item.id}`],
    );
    assert.match(item.stripe_invoice_item_id, /^ii_test\d+$/);
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).balance, 10_000 - 1_001);

    // Stripe's invoice.paid names the invoice item among its lines: the overage is paid, the balance whole again.
    const event = fixture('invoice.paid.json');
    event.data.object.lines.data[0].parent.invoice_item_details.invoice_item = item.stripe_invoice_item_id;
    const payload = JSON.stringify(event);
    for (let i = 0; i < 2; i++) assert.equal((await deliver(payload, sign(payload))).statusCode, 200);
    const check = await ledgerCheck(t.db.pool, workspace.id);
    assert.ok(check.consistent, JSON.stringify(check));
    assert.equal(check.balance, 10_000);
    assert.deepEqual(check.overage, { accrued: 1_001, billed: 1_001, paid_in_ledger: 1_001, paid_on_invoices: 1_001 });
  });

  it("a cancellation's final invoice is created at Stripe with the pending items", async () => {
    const { workspace } = await t.workspace('growth');
    await setProcessorCustomer(t.db.pool, workspace.id, CUSTOMER);
    await accrue(workspace.id, 10_000, '2026-03-10T09:00:00Z');
    const cancellation = await cancelSubscription(t.db.pool, workspace.id, t.clock.now(), OPERATOR);
    assert.deepEqual(
      cancellation.items.map((i) => i.amount_cents),
      [5_000],
    );
    assert.deepEqual(await sendToProcessor(t.db.pool, stripe), { items_sent: 1, final_invoices_sent: 1 });
    const created = lastSent('/v1/invoices');
    assert.deepEqual(
      [
        created.body.get('customer'),
        created.body.get('pending_invoice_items_behavior'),
        created.body.get('auto_advance'),
        created.body.get('metadata[invoice_id]'),
        created.headers.get('idempotency-key'),
      ],
      [CUSTOMER, 'include', 'true', cancellation.final_invoice, `final-invoice-${cancellation.final_invoice}`],
    );
    assert.equal(
      (await t.db.pool.query('SELECT stripe_invoice_id FROM invoices WHERE id = $1', [cancellation.final_invoice]))
        .rows[0].stripe_invoice_id,
      fixture('invoice.json').id,
    );
  });
});
