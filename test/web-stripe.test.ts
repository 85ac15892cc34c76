// Subscriptions with Stripe, offline: the official package over a stubbed HTTP client answering
// recorded API objects (test/fixtures/stripe), and signed webhook fixtures. Checkout in subscription
// mode anchored on the 1st, the paid, failed and cancelled states (past_due stops overage, a cleared
// payment resumes it), each event applied once and late events ignored, an upgrade charged at Stripe,
// a downgrade from Stripe's portal waiting for the cycle, the portal, and cancellation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { adjustCredits } from '../src/accounts/workspaces.js';
import { testApp, type TestApp } from './support/app.js';
import { CUSTOMER, fixture, SECRET_KEY, sign, StripeStub, WEBHOOK_SECRET, type Json } from './support/stripe.js';
import { WebClient } from './support/web.js';

const SUBSCRIPTION = 'sub_1SxZ9qLm3Np4Tx6W';
const MID_MARCH = '2026-03-16T12:00:00Z';
let subscriptionPlan = 'developer';
let subscriptionStatus = 'active';
const subscription = () => ({
  ...fixture('subscription.json'),
  status: subscriptionStatus,
  metadata: { plan: subscriptionPlan, workspace_id: 'ws' },
});

const stub: StripeStub = new StripeStub({
  'POST /v1/checkout/sessions': (body) => ({
    ...fixture('checkout-session.json'),
    id: `cs_test_sub${body.get('client_reference_id')!.slice(4)}`,
    mode: body.get('mode'),
  }),
  [`GET /v1/subscriptions/${SUBSCRIPTION}`]: subscription,
  [`POST /v1/subscriptions/${SUBSCRIPTION}`]: (body) => {
    subscriptionPlan = body.get('metadata[plan]') ?? subscriptionPlan;
    return subscription();
  },
  [`DELETE /v1/subscriptions/${SUBSCRIPTION}`]: () => {
    subscriptionStatus = 'canceled';
    return subscription();
  },
  'POST /v1/billing_portal/sessions': (body) => ({
    ...fixture('billing-portal-session.json'),
    return_url: body.get('return_url'),
  }),
  'POST /v1/invoiceitems': () => ({ ...fixture('invoiceitem.json'), id: `ii_test${sent.length}` }),
  'POST /v1/invoices': () => fixture('invoice.json'),
});
const sent = stub.sent;

const lastSent = (p: string) => stub.lastSent(p);

let t: TestApp;
let owner: WebClient;
let key: string;
let ws: string;

before(async () => {
  t = await testApp({
    now: MID_MARCH,
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
    payments: (config) => stub.provider(config),
  });
  owner = new WebClient(t, '10.3.0.1');
  key = await owner.signUp('owner@example.com');
  ws = (await t.db.pool.query<{ id: string }>('SELECT id FROM workspaces')).rows[0]!.id;
});
after(() => t.close());

/** An event as Stripe sends it: its own id, its time, signed with the endpoint's secret. */
async function deliver(event: Json, id: string, created: string): Promise<number> {
  event.id = id;
  event.created = Math.floor(Date.parse(created) / 1000);
  const payload = JSON.stringify(event);
  const signature = sign(payload);
  const res = await t.app.http.inject({
    method: 'POST',
    url: '/webhooks/stripe',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload,
  });
  return res.statusCode;
}

const subscriptionEvent = (type: string, changes: Json = {}): Json => {
  const event = fixture('customer.subscription.updated.json');
  event.type = type;
  event.data.object = { ...subscription(), ...changes };
  return event;
};

const state = async (id = ws) =>
  (
    await t.db.pool.query(
      `SELECT plan, subscription_status AS status, pending_plan, monthly_remaining::int AS monthly,
              overage_unbilled::int AS overage, stripe_subscription_id AS sub, stripe_customer_id AS customer
       FROM workspaces WHERE id = $1`,
      [id],
    )
  ).rows[0];

describe('a subscription with Stripe', () => {
  it('subscribing opens Checkout in subscription mode, anchored on the 1st, with the plan', async () => {
    await owner.get('/account/billing');
    const res = await owner.post('/account/billing/plan', { plan: 'developer' });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, fixture('checkout-session.json').url);
    const s = lastSent('/v1/checkout/sessions').body;
    assert.equal(s.get('mode'), 'subscription');
    assert.equal(s.get('line_items[0][price_data][unit_amount]'), '1900');
    assert.equal(s.get('line_items[0][price_data][recurring][interval]'), 'month');
    assert.equal(s.get('subscription_data[billing_cycle_anchor]'), String(Date.parse('2026-04-01T00:00:00Z') / 1000));
    assert.equal(s.get('subscription_data[proration_behavior]'), 'create_prorations');
    assert.equal(s.get('subscription_data[metadata][plan]'), 'developer');
    assert.equal((await state()).plan, 'free_trial', 'nothing changes before Stripe reports the payment');
  });

  it('checkout.session.completed subscribes the workspace, once', async () => {
    const checkout = lastSent('/v1/checkout/sessions').body.get('client_reference_id')!;
    const event = fixture('checkout.session.completed.subscription.json');
    event.data.object = { ...event.data.object, id: `cs_test_sub${checkout.slice(4)}`, client_reference_id: checkout };
    for (let i = 0; i < 2; i++) assert.equal(await deliver(event, 'evt_sub_paid_1', '2026-03-16T12:01:00Z'), 200);
    assert.deepEqual(await state(), {
      plan: 'developer',
      status: 'active',
      pending_plan: null,
      monthly: 500 + 5_000,
      overage: 0,
      sub: SUBSCRIPTION,
      customer: CUSTOMER,
    });
    assert.ok((await ledgerCheck(t.db.pool, ws)).consistent);
  });

  it('invoice.payment_failed: past_due, no overage; invoice.paid: active again, overage resumes', async () => {
    await adjustCredits(t.db.pool, ws, -5_500, 'test: the month used up', t.clock);
    assert.equal(await deliver(fixture('invoice.payment_failed.json'), 'evt_fail_1', '2026-04-01T01:00:00Z'), 200);
    assert.equal((await state()).status, 'past_due');
    const refused = await t.get('/v1/entities/search?name=acme', key);
    assert.equal(refused.statusCode, 429, 'past due: no overage');
    assert.match((await owner.get('/account')).body, /The last payment failed/);

    assert.equal(await deliver(fixture('invoice.paid.json'), 'evt_paid_1', '2026-04-02T09:00:00Z'), 200);
    assert.equal((await state()).status, 'active');
    assert.equal((await t.get('/v1/entities/search?name=acme', key)).statusCode, 200, 'served as overage');
    assert.equal((await state()).overage, 1);
  });

  it('a late event changes nothing, and a replayed one is applied once', async () => {
    assert.equal(await deliver(fixture('invoice.payment_failed.json'), 'evt_fail_0', '2026-03-31T23:00:00Z'), 200);
    assert.equal((await state()).status, 'active', 'older than the payment that cleared');
    assert.equal(await deliver(fixture('invoice.payment_failed.json'), 'evt_fail_1', '2026-04-03T00:00:00Z'), 200);
    assert.equal((await state()).status, 'active', 'an event id already applied');
  });

  it('an upgrade is charged at Stripe now and applied at once; its event then changes nothing', async () => {
    await adjustCredits(t.db.pool, ws, 1_000, 'test: some credits', t.clock);
    await owner.get('/account/billing');
    assert.equal(
      (await owner.post('/account/billing/plan', { plan: 'pro' })).headers.location,
      '/account/billing?done=upgrade',
    );
    const s = lastSent(`/v1/subscriptions/${SUBSCRIPTION}`).body;
    assert.equal(s.get('proration_behavior'), 'always_invoice');
    assert.equal(s.get('items[0][id]'), 'si_TqR8vB3kLm2Np4');
    assert.equal(s.get('items[0][price_data][unit_amount]'), '4900');
    assert.equal(s.get('items[0][price_data][product]'), 'prod_TqR8developer');
    assert.equal(s.get('metadata[plan]'), 'pro');
    const after = await state();
    assert.equal(after.plan, 'pro');
    assert.equal(after.monthly, 1_000 + 20_000);
    assert.equal(
      await deliver(subscriptionEvent('customer.subscription.updated'), 'evt_upd_pro', '2026-03-16T12:05:00Z'),
      200,
    );
    assert.equal((await state()).monthly, 21_000, 'the upgrade is not granted twice');
  });

  it("a downgrade made in Stripe's portal waits for the next cycle", async () => {
    subscriptionPlan = 'developer';
    const event = subscriptionEvent('customer.subscription.updated');
    assert.equal(await deliver(event, 'evt_upd_dev', '2026-04-05T00:00:00Z'), 200);
    const s = await state();
    assert.equal(s.plan, 'pro');
    assert.equal(s.pending_plan, 'developer');
  });

  it("opens Stripe's customer portal for the workspace's customer", async () => {
    await owner.get('/account/billing');
    const res = await owner.post('/account/billing/portal');
    assert.equal(res.headers.location, fixture('billing-portal-session.json').url);
    const s = lastSent('/v1/billing_portal/sessions').body;
    assert.equal(s.get('customer'), CUSTOMER);
    assert.equal(s.get('return_url'), 'http://127.0.0.1:3000/account/billing');
  });

  it('cancelling ends the subscription at Stripe and here, with a final invoice of the overage', async () => {
    await owner.get('/account/billing');
    assert.equal(
      (await owner.post('/account/billing/cancel', { confirm: 'yes' })).headers.location,
      '/account/billing?done=cancelled',
    );
    assert.equal(lastSent(`/v1/subscriptions/${SUBSCRIPTION}`).method, 'DELETE');
    const s = await state();
    assert.equal(s.status, 'cancelled');
    assert.equal(s.pending_plan, null);
    assert.equal(lastSent('/v1/invoices').body.get('customer'), CUSTOMER);
    const deleted = subscriptionEvent('customer.subscription.deleted', { status: 'canceled' });
    assert.equal(await deliver(deleted, 'evt_del_1', '2026-04-06T00:00:00Z'), 200);
    assert.equal((await state()).status, 'cancelled');
  });
});

describe('subscription events for other workspaces', () => {
  it('customer.subscription.deleted cancels the workspace holding it; .updated past_due sets past_due', async () => {
    const a = await t.workspace('growth');
    const b = await t.workspace('developer');
    await t.db.pool.query('UPDATE workspaces SET stripe_subscription_id = $2 WHERE id = $1', [a.workspace.id, 'sub_A']);
    await t.db.pool.query('UPDATE workspaces SET stripe_subscription_id = $2 WHERE id = $1', [b.workspace.id, 'sub_B']);
    const deleted = subscriptionEvent('customer.subscription.deleted', {
      id: 'sub_A',
      status: 'canceled',
      metadata: {},
    });
    assert.equal(await deliver(deleted, 'evt_del_A', '2026-04-07T00:00:00Z'), 200);
    const late = subscriptionEvent('customer.subscription.updated', { id: 'sub_B', status: 'past_due', metadata: {} });
    assert.equal(await deliver(late, 'evt_upd_B', '2026-04-07T00:00:00Z'), 200);
    assert.equal((await state(a.workspace.id)).status, 'cancelled');
    assert.equal((await state(b.workspace.id)).status, 'past_due');
    const unknown = subscriptionEvent('customer.subscription.deleted', { id: 'sub_nobody', status: 'canceled' });
    assert.equal(await deliver(unknown, 'evt_del_x', '2026-04-07T00:00:00Z'), 200, 'acknowledged');
  });

  it('an unsigned or tampered event is refused and changes nothing', async () => {
    const c = await t.workspace('developer');
    await t.db.pool.query('UPDATE workspaces SET stripe_subscription_id = $2 WHERE id = $1', [c.workspace.id, 'sub_C']);
    const event = subscriptionEvent('customer.subscription.deleted', { id: 'sub_C', status: 'canceled' });
    const payload = JSON.stringify(event);
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': sign(payload, 'whsec_wrong'),
      },
      payload,
    });
    assert.equal(res.statusCode, 400);
    assert.equal((await state(c.workspace.id)).status, 'active');
  });
});
