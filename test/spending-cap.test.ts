// The monthly spending cap on overage (docs/billing.md, "Spending cap"): enforced by the gate in the row
// update that reserves the overage credit, priced as the daily invoice items are, exact under 100
// concurrent requests; refused with 402 payment_required naming the cap while plan and pack credits
// still serve; set by the owner on the billing page, a bad amount refused under its field.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { adjustCredits, createKey } from '../src/accounts/workspaces.js';
import { billingBalance } from '../src/billing/balance.js';
import { getLimits, setOverageCap } from '../src/billing/limits.js';
import { billOverage } from '../src/billing/overage.js';
import { PEPPER, testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

let t: TestApp;
let ws: string;
let key: string;
/** Ten keys of the workspace: each key's requests are batched, so ten keys race for the row lock. */
let keys: string[];

before(async () => {
  t = await testApp({ now: '2026-03-16T12:00:00Z' });
  const w = await t.workspace('developer');
  ws = w.workspace.id;
  key = w.key.key;
  // The per-minute window out of the way: the cap alone decides.
  await t.db.pool.query('UPDATE workspaces SET per_minute_override = 10000 WHERE id = $1', [ws]);
  await adjustCredits(t.db.pool, ws, -10_000, 'test: the month used up', t.clock);
  keys = [key];
  for (let i = 1; i < 10; i++) keys.push((await createKey(t.db.pool, ws, 'live', PEPPER, t.clock)).key);
});
after(() => t.close());

const search = (_: unknown = null, i = 0) => t.get('/v1/entities/search?name=acme', keys[i % keys.length]);
const overage = async () => (await ledgerCheck(t.db.pool, ws)).overage.accrued;

describe('the spending cap', () => {
  it('100 parallel requests at the edge of a 25-cent cap: 50 served as overage, 50 refused, none over', async () => {
    await setOverageCap(t.db.pool, ws, 25);
    const answers = await Promise.all(Array.from({ length: 100 }, search));
    const codes = answers.map((a) => a.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 50, 'five 10-credit blocks at 5 cents');
    assert.equal(codes.filter((c) => c === 402).length, 50);
    const refused = answers.find((a) => a.statusCode === 402)!.json().error;
    assert.equal(refused.code, 'payment_required');
    assert.match(refused.message, /monthly spending cap on overage is reached/);
    assert.equal(await overage(), 50);
    assert.equal((await getLimits(t.db.pool, ws, t.clock.now())).overage_this_month_cents, 25);
    assert.ok((await ledgerCheck(t.db.pool, ws)).consistent);
    // What the invoice bills for the day is the cap at most.
    const run = await billOverage(t.db.pool, new Date('2026-03-17T00:00:00Z'), t.clock.now());
    assert.equal(run.amount_cents, 25);
  });

  it('plan and pack credits keep serving at the cap', async () => {
    await adjustCredits(t.db.pool, ws, 3, 'test: three credits', t.clock);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await search()).statusCode);
    assert.deepEqual(codes, [200, 200, 200, 402]);
    assert.equal(await overage(), 50);
  });

  it('the next day starts a new block (priced per day, as billed); a raised cap lets it through', async () => {
    t.clock.set('2026-03-17T09:00:00Z');
    assert.equal((await search()).statusCode, 402, 'a new block would make 30 cents');
    await setOverageCap(t.db.pool, ws, 30);
    const codes = await Promise.all(Array.from({ length: 12 }, search));
    assert.equal(codes.filter((a) => a.statusCode === 200).length, 10);
    assert.equal(await overage(), 60);
  });

  it('a new month starts from nothing; no cap, no limit', async () => {
    t.clock.set('2026-04-01T00:00:01Z');
    await billingBalance(t.db.pool, ws, t.clock.now()); // into April's cycle, as a request would
    await adjustCredits(t.db.pool, ws, -10_000, 'test: the new month used up', t.clock);
    assert.equal((await getLimits(t.db.pool, ws, t.clock.now())).overage_this_month_cents, 0);
    const codes = await Promise.all(Array.from({ length: 61 }, search));
    assert.equal(codes.filter((a) => a.statusCode === 200).length, 60);
    await setOverageCap(t.db.pool, ws, null);
    assert.equal((await search()).statusCode, 200);
  });
});

describe('the cap and the alert on the billing page', () => {
  it('the owner sets them; a bad amount is refused under its field and changes nothing', async () => {
    const owner = new WebClient(t, '10.7.0.1');
    await owner.signUp('capper@example.com');
    const mine = (
      await t.db.pool.query<{ workspace_id: string }>(
        `SELECT m.workspace_id FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
        ['capper@example.com'],
      )
    ).rows[0]!.workspace_id;
    await owner.get('/account/billing');
    for (const [cap, message] of [
      ['12.345', 'Enter an amount in dollars, such as 50 or 12.50, or leave it empty.'],
      ['-5', 'Enter an amount in dollars'],
      ['abc', 'Enter an amount in dollars'],
      ['2000000', 'At most $1,000,000 a month.'],
    ] as const) {
      const res = await owner.post('/account/billing/cap', { cap });
      assert.equal(res.statusCode, 400, cap);
      assert.ok(res.body.includes(message), `${cap}: ${message}`);
    }
    for (const threshold of ['1.5', '-1', 'lots'])
      assert.equal((await owner.post('/account/billing/alert', { threshold })).statusCode, 400, threshold);
    assert.deepEqual(await getLimits(t.db.pool, mine, t.clock.now()), {
      low_balance_threshold: null,
      low_balance_alerted: false,
      overage_cap_cents: null,
      overage_this_month_cents: 0,
    });
    assert.equal((await owner.post('/account/billing/cap', { cap: '12.5' })).statusCode, 303);
    assert.equal((await owner.post('/account/billing/alert', { threshold: '250' })).statusCode, 303);
    const limits = await getLimits(t.db.pool, mine, t.clock.now());
    assert.equal(limits.overage_cap_cents, 1_250);
    assert.equal(limits.low_balance_threshold, 250);
    assert.match((await owner.get('/account/billing')).body, /\$12\.50 a month/);
    assert.equal((await owner.post('/account/billing/cap', { cap: '' })).statusCode, 303);
    assert.equal((await getLimits(t.db.pool, mine, t.clock.now())).overage_cap_cents, null);
  });
});
