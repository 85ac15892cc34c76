// Low-balance alerts (docs/billing.md, "Low-balance alerts"): the job mails once when the balance falls to
// the owner's threshold, not again while it stays there, and again after it went back above; the mail
// goes to the billing address when one is set. Requests themselves do nothing more for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adjustCredits } from '../src/accounts/workspaces.js';
import { lowBalanceJob } from '../src/billing/alerts.js';
import { getLimits } from '../src/billing/limits.js';
import { testApp, type TestApp } from './support/app.js';
import { mails, WebClient } from './support/web.js';

let t: TestApp;
let owner: WebClient;
let ws: string;
let key: string;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  owner = new WebClient(t, '10.8.0.1');
  key = await owner.signUp('owner@example.com');
  ws = (await t.db.pool.query<{ id: string }>('SELECT id FROM workspaces')).rows[0]!.id;
});
after(() => t.close());

const run = () =>
  lowBalanceJob.run({ pool: t.db.pool, config: t.config, clock: t.clock, asOf: t.clock.now(), log: () => {} });
const alerts = async () => (await mails(t)).filter((m) => /Registry Lookup: the balance of/.test(m.subject));
const spend = async (n: number) => {
  for (let i = 0; i < n; i++) assert.equal((await t.get('/v1/entities/search?name=acme', key)).statusCode, 200);
};

describe('low-balance alerts', () => {
  it('nothing while the balance is above the threshold', async () => {
    await owner.get('/account/billing');
    assert.equal((await owner.post('/account/billing/alert', { threshold: '495' })).statusCode, 303);
    assert.deepEqual(await run(), { alerted: 0, rearmed: 0 });
    await spend(4);
    assert.deepEqual(await run(), { alerted: 0, rearmed: 0 });
    assert.equal((await alerts()).length, 0);
  });

  it('one mail when it falls to the threshold, none more while it stays at or below', async () => {
    await spend(1);
    assert.deepEqual(await run(), { alerted: 1, rearmed: 0 });
    const [mail] = await alerts();
    assert.equal(mail!.to, 'owner@example.com');
    assert.match(mail!.text, /is 495 credits, at or below the 495 credits/);
    assert.match(mail!.text, /http:\/\/127\.0\.0\.1:3000\/account\/billing/);
    await spend(2);
    assert.deepEqual(await run(), { alerted: 0, rearmed: 0 });
    assert.equal((await alerts()).length, 1);
    assert.equal((await getLimits(t.db.pool, ws, t.clock.now())).low_balance_alerted, true);
  });

  it('re-armed once the balance is above again; the next crossing mails the billing address', async () => {
    await adjustCredits(t.db.pool, ws, 100, 'test: credits back', t.clock);
    assert.deepEqual(await run(), { alerted: 0, rearmed: 1 });
    await owner.get('/account/billing');
    await owner.post('/account/billing/details', {
      company: 'Acme',
      address: '1 Road',
      country: 'US',
      tax_id: '',
      email: 'books@acme.example',
    });
    await adjustCredits(t.db.pool, ws, -200, 'test: credits spent', t.clock);
    assert.deepEqual(await run(), { alerted: 1, rearmed: 0 });
    const all = await alerts();
    assert.equal(all.length, 2);
    assert.equal(all[1]!.to, 'books@acme.example');
  });

  it('a threshold turned off sends nothing', async () => {
    await owner.get('/account/billing');
    assert.equal((await owner.post('/account/billing/alert', { threshold: '' })).statusCode, 303);
    await adjustCredits(t.db.pool, ws, -10, 'test: more spent', t.clock);
    assert.deepEqual(await run(), { alerted: 0, rearmed: 0 });
    assert.equal((await alerts()).length, 2);
  });
});
