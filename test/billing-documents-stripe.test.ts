// Payment history with Stripe, offline (test/support/stripe.ts): a pack paid through Checkout gets its
// receipt, its refund a credit note, and every invoice Stripe charges (a subscription's first month, a
// renewal with overage, an upgrade's proration) a receipt with Stripe's lines, each once however often
// the event comes; a plan checkout is not documented twice (Stripe's invoice is its receipt).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { refundCheckout } from '../src/billing/checkouts.js';
import { listDocuments } from '../src/billing/documents.js';
import type { PaymentProvider } from '../src/billing/provider.js';
import { PEPPER, testApp, type TestApp } from './support/app.js';
import { CUSTOMER, fixture, SECRET_KEY, sign, StripeStub, WEBHOOK_SECRET, type Json } from './support/stripe.js';

const SUBSCRIPTION = 'sub_1SxZ9qLm3Np4Tx6W';
const stub = new StripeStub({
  'POST /v1/checkout/sessions': (body) => ({
    ...fixture('checkout-session.json'),
    id: `cs_test_doc${body.get('client_reference_id')!.slice(4)}`,
    client_reference_id: body.get('client_reference_id'),
  }),
  'POST /v1/refunds': (body) => ({ ...fixture('refund.json'), amount: Number(body.get('amount')) }),
});

let t: TestApp;
let stripe: PaymentProvider;
let ws: string;
let key: string;

before(async () => {
  t = await testApp({
    now: '2026-03-16T12:00:00Z',
    env: { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
    payments: (config) => (stripe = stub.provider(config)),
  });
  const w = await createWorkspace(t.db.pool, { plan: 'developer', name: 'Acme Research' }, PEPPER, t.clock);
  ws = w.workspace.id;
  key = w.key.key;
});
after(() => t.close());

async function deliver(event: Json, id: string): Promise<void> {
  event.id = id;
  const payload = JSON.stringify(event);
  const res = await t.app.http.inject({
    method: 'POST',
    url: '/webhooks/stripe',
    headers: { 'content-type': 'application/json', 'stripe-signature': sign(payload) },
    payload,
  });
  assert.equal(res.statusCode, 200, res.body);
}

async function buyPack(slug: string): Promise<string> {
  const res = await t.app.http.inject({
    method: 'POST',
    url: '/api/v1/billing/checkout-credit-pack',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ slug }),
  });
  assert.equal(res.statusCode, 200, res.body);
  const checkout = stub.lastSent('/v1/checkout/sessions').body.get('client_reference_id')!;
  const event = fixture('checkout.session.completed.json');
  event.data.object = { ...event.data.object, id: `cs_test_doc${checkout.slice(4)}`, client_reference_id: checkout };
  await deliver(event, `evt_doc_${checkout.slice(4, 16)}`);
  return checkout;
}

const docs = async () => (await listDocuments(t.db.pool, ws)).reverse();

describe('documents of Stripe payments', () => {
  it('a pack paid through Stripe gets a receipt; its refund a credit note', async () => {
    const checkout = await buyPack('bulk');
    await refundCheckout(t.db.pool, stripe, checkout, t.clock.now());
    assert.deepEqual(
      (await docs()).map((d) => [d.number, d.kind, d.provider, d.total_cents, d.buyer.name]),
      [
        ['RL-000001', 'receipt', 'stripe', 9_900, 'Acme Research'],
        ['RL-000002', 'credit_note', 'stripe', -9_900, 'Acme Research'],
      ],
    );
  });

  it("a paid subscription invoice is a receipt of Stripe's lines, totalling what was paid, once", async () => {
    await t.db.pool.query('UPDATE workspaces SET stripe_subscription_id = $2 WHERE id = $1', [ws, SUBSCRIPTION]);
    const event = fixture('invoice.paid.json');
    for (let i = 0; i < 2; i++) await deliver(event, 'evt_invoice_paid_doc');
    await deliver(structuredClone(event), 'evt_invoice_paid_doc_again');
    const receipts = (await docs()).filter((d) => d.source.startsWith('stripe_invoice:'));
    assert.equal(receipts.length, 1);
    const r = receipts[0]!;
    assert.equal(r.source, 'stripe_invoice:in_1SyC3aLm3Np4Tx6WsUbS0401');
    assert.equal(r.issued_at, '2026-04-01T01:00:00Z', "Stripe's time of payment");
    assert.deepEqual(
      r.lines.map((l) => [l.description, l.amount_cents]),
      [
        ['API overage 2026-03-10: 1,001 credits', 505],
        ['1 × Developer (at $19.00 / month)', 1_900],
      ],
    );
    assert.equal(r.total_cents, 2_405);
  });

  it('what Stripe applied besides the lines (a discount here) is a line of its own', async () => {
    const event = fixture('invoice.paid.json');
    event.data.object.id = 'in_discounted';
    event.data.object.amount_paid = 2_000;
    await deliver(event, 'evt_invoice_paid_discount');
    const r = (await docs()).find((d) => d.source === 'stripe_invoice:in_discounted')!;
    assert.deepEqual(r.lines.at(-1), {
      description: 'Tax, discounts and credit balance applied by Stripe',
      quantity: 1,
      unit_cents: -405,
      amount_cents: -405,
    });
    assert.equal(r.total_cents, 2_000);
  });

  it('an invoice of nothing paid, or of no workspace here, is not documented', async () => {
    const before = (await docs()).length;
    const zero = fixture('invoice.paid.json');
    zero.data.object.id = 'in_zero';
    zero.data.object.amount_paid = 0;
    await deliver(zero, 'evt_invoice_zero');
    const stranger = fixture('invoice.paid.json');
    stranger.data.object.id = 'in_stranger';
    stranger.data.object.customer = 'cus_nobody';
    stranger.data.object.parent.subscription_details.subscription = 'sub_nobody';
    await deliver(stranger, 'evt_invoice_stranger');
    assert.equal((await docs()).length, before);
    assert.equal(CUSTOMER, fixture('invoice.paid.json').data.object.customer);
  });
});
