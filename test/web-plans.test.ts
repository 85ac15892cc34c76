// Plans chosen in the account pages with the local provider: what a subscription, an upgrade, a
// downgrade, keeping the plan and a cancellation each do to this month's credits (docs/billing.md,
// "Plans"), the ledger equal to the counters at every step, and the states moving as the spec says.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { cycleJob } from '../src/accounts/jobs.js';
import { changeKind, creditsAdded, dueNowCents, monthLeft } from '../src/billing/plan-change.js';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

// Half of March is left at noon on the 16th (31 days): prorated figures are round.
const MID_MARCH = '2026-03-16T12:00:00Z';

describe('the rules', () => {
  it('classifies a choice from the plan and the subscription state', () => {
    const w = (plan: string, status = 'active', pending: string | null = null) =>
      ({ plan, subscription_status: status, pending_plan: pending }) as Parameters<typeof changeKind>[0];
    assert.equal(changeKind(w('free_trial'), 'developer'), 'subscribe');
    assert.equal(changeKind(w('pro', 'cancelled'), 'pro'), 'subscribe');
    assert.equal(changeKind(w('developer'), 'pro'), 'upgrade');
    assert.equal(changeKind(w('mcp_starter'), 'developer'), 'upgrade');
    assert.equal(changeKind(w('pro'), 'developer'), 'downgrade');
    assert.equal(changeKind(w('pro', 'active', 'developer'), 'pro'), 'keep');
    assert.equal(changeKind(w('pro'), 'pro'), 'none');
    assert.equal(changeKind(w('pro', 'past_due'), 'growth'), 'upgrade');
  });

  it('prorates credits and price to what is left of the UTC month', () => {
    const now = new Date(MID_MARCH);
    assert.equal(monthLeft(new Date('2026-03-01T00:00:00Z')), 1);
    assert.equal(monthLeft(now), 0.5);
    assert.equal(creditsAdded('subscribe', 'free_trial', 'developer', now), 5_000);
    assert.equal(dueNowCents('subscribe', 'free_trial', 'developer', now), 950);
    assert.equal(creditsAdded('upgrade', 'developer', 'pro', now), 20_000);
    assert.equal(dueNowCents('upgrade', 'developer', 'pro', now), 1_500);
    assert.equal(creditsAdded('downgrade', 'pro', 'developer', now), 0);
    assert.equal(dueNowCents('downgrade', 'pro', 'developer', now), 0);
    // The last second of a month still costs a cent, and grants what the proportion gives.
    const last = new Date('2026-03-31T23:59:59Z');
    assert.equal(dueNowCents('subscribe', 'free_trial', 'lead_feed', last), 1);
    assert.equal(creditsAdded('subscribe', 'free_trial', 'lead_feed', last), 0);
  });
});

describe('plans with the local checkout', () => {
  let t: TestApp;
  let owner: WebClient;
  let key: string;
  let ws: string;

  before(async () => {
    t = await testApp({ now: MID_MARCH });
    owner = new WebClient(t, '10.2.0.1');
    key = await owner.signUp('owner@example.com');
    ws = (await t.db.pool.query<{ id: string }>('SELECT id FROM workspaces')).rows[0]!.id;
  });
  after(() => t.close());

  const state = async () =>
    (
      await t.db.pool.query(
        'SELECT plan, subscription_status, pending_plan, monthly_remaining::int FROM workspaces WHERE id = $1',
        [ws],
      )
    ).rows[0];
  const consistent = async () => assert.ok((await ledgerCheck(t.db.pool, ws)).consistent);

  /** Chooses a plan on the billing page; pays its local checkout when it has one. */
  async function choose(plan: string): Promise<string> {
    await owner.get('/account/billing');
    const res = await owner.post('/account/billing/plan', { plan });
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    const location = String(res.headers.location);
    const checkout = /\/checkout\/(chk_\w+)$/.exec(location)?.[1];
    if (!checkout) return location;
    const page = await t.app.http.inject({ method: 'GET', url: `/checkout/${checkout}` });
    assert.match(page.body, /plan/);
    const paid = await t.app.http.inject({ method: 'POST', url: `/checkout/${checkout}/complete` });
    assert.equal(paid.statusCode, 303);
    return page.body;
  }

  it('subscribing keeps the trial credits left and adds the rest of the month of the plan', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await t.get('/v1/entities/search?name=acme', key)).statusCode, 200);
    const page = await choose('developer');
    assert.match(page, /\$9\.50 for the rest of this month/);
    assert.deepEqual(await state(), {
      plan: 'developer',
      subscription_status: 'active',
      pending_plan: null,
      monthly_remaining: 490 + 5_000,
    });
    await consistent();
    assert.equal((await t.get('/v1/account/usage', key)).json().data.plan, 'developer');
  });

  it('upgrading adds the difference of the grants for the rest of the month, at once', async () => {
    const page = await choose('pro');
    assert.match(page, /\$15\.00 for the rest of this month/);
    assert.deepEqual(await state(), {
      plan: 'pro',
      subscription_status: 'active',
      pending_plan: null,
      monthly_remaining: 5_490 + 20_000,
    });
    // Pro's CSV is there at once.
    const csv = await t.get('/v1/entities/search?name=acme&format=csv', key);
    assert.equal(csv.statusCode, 200);
    await consistent();
  });

  it('downgrading waits for the next cycle; choosing the plan again keeps it', async () => {
    assert.equal(await choose('developer'), '/account/billing?done=downgrade');
    assert.deepEqual(await state(), {
      plan: 'pro',
      subscription_status: 'active',
      pending_plan: 'developer',
      monthly_remaining: 25_489,
    });
    assert.match((await owner.get('/account/billing')).body, /moves to <strong>Developer<\/strong> on\s+2026-04-01/);
    assert.equal(await choose('pro'), '/account/billing?done=keep');
    assert.equal((await state()).pending_plan, null);
    assert.equal(await choose('developer'), '/account/billing?done=downgrade');
    await consistent();
  });

  it('the next cycle applies the downgrade with its own grant', async () => {
    t.clock.set('2026-04-01T00:00:00Z');
    await cycleJob.run({ pool: t.db.pool, asOf: t.clock.now() } as Parameters<typeof cycleJob.run>[0]);
    assert.deepEqual(await state(), {
      plan: 'developer',
      subscription_status: 'active',
      pending_plan: null,
      monthly_remaining: 10_000,
    });
    await consistent();
  });

  it('cancelling keeps the month, grants nothing next month; subscribing again works', async () => {
    t.clock.set('2026-04-10T00:00:00Z');
    // Sessions last 14 days: a new one.
    assert.equal((await owner.get('/account')).statusCode, 303);
    await owner.logIn('owner@example.com');
    await owner.get('/account/billing');
    assert.equal(
      (await owner.post('/account/billing/cancel', { confirm: 'yes' })).headers.location,
      '/account/billing?done=cancelled',
    );
    assert.equal((await state()).subscription_status, 'cancelled');
    assert.equal((await t.get('/v1/entities/search?name=acme', key)).statusCode, 200, 'the month stays spendable');
    t.clock.set('2026-05-01T00:00:00Z');
    await cycleJob.run({ pool: t.db.pool, asOf: t.clock.now() } as Parameters<typeof cycleJob.run>[0]);
    assert.equal((await state()).monthly_remaining, 0);
    assert.equal((await t.get('/v1/entities/search?name=acme', key)).statusCode, 402);
    await owner.logIn('owner@example.com');
    await choose('mcp_starter');
    assert.deepEqual(await state(), {
      plan: 'mcp_starter',
      subscription_status: 'active',
      pending_plan: null,
      monthly_remaining: 1_000,
    });
    assert.equal((await t.get('/v1/entities/search?name=acme', key)).statusCode, 403, 'MCP Starter has no REST');
    await consistent();
  });

  it('refuses Enterprise and unknown plans, and plan checkouts are never refunded', async () => {
    await owner.get('/account/billing');
    assert.equal((await owner.post('/account/billing/plan', { plan: 'enterprise' })).statusCode, 400);
    assert.equal((await owner.post('/account/billing/plan', { plan: 'free_trial' })).statusCode, 400);
    const { rows } = await t.db.pool.query<{ id: string }>(`SELECT id FROM checkouts WHERE kind = 'plan' LIMIT 1`);
    const refund = await owner.post(`/account/billing/refunds/${rows[0]!.id}`);
    assert.equal(refund.statusCode, 409);
    assert.match(refund.body, /subscription payments are not refunded/);
  });
});
