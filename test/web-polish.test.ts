// The dashboard's small promises: the trial's end date, said once; the invitation mail named after the workspace;
// readable times on the checkout page; the favicon on every page; a key shown once with its Copy script; and a
// confirmation before revoking a key or cancelling the plan, without which the post changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testApp, type TestApp } from './support/app.js';
import { WebClient, lastMail } from './support/web.js';

let t: TestApp;
let owner: WebClient;
let key: string;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  owner = new WebClient(t, '10.9.0.1');
  key = await owner.signUp('owner@example.com');
});
after(() => t.close());

const keyWorks = async (k: string) => (await t.get('/v1/account/usage', k)).statusCode === 200;

describe('the dashboard', () => {
  it("shows the trial's end date on the overview and the billing page, and says free trial once", async () => {
    const overview = (await owner.get('/account')).body;
    assert.match(overview, /until 2026-03-17/);
    assert.match(overview, /end on <strong>2026-03-17 12:00 UTC<\/strong>/);
    const billing = (await owner.get('/account/billing')).body;
    assert.match(billing, /end on <strong>2026-03-17 12:00 UTC<\/strong>/);
    assert.doesNotMatch(billing, /Free Trial<\/strong>\s*<span class="pill">free trial/);
    assert.equal(billing.match(/free trial/gi)?.length ?? 0, billing.match(/Free Trial/g)?.length ?? 0);
    // Past the seven days the same pages say it ended.
    t.clock.set('2026-03-18T00:00:00Z');
    assert.match((await owner.get('/account')).body, /ended 2026-03-17/);
    t.clock.set('2026-03-10T12:00:00Z');
  });

  it('names the workspace, not the inviter twice, in the invitation subject', async () => {
    await owner.get('/account/members');
    await owner.post('/account/members', { email: 'guest@example.com' });
    const mail = await lastMail(t, 'guest@example.com', /Invitation/);
    assert.equal(mail.subject, 'Invitation to the workspace "owner@example.com" on Registry Lookup');
    assert.match(mail.text, /owner@example.com invited you to the workspace "owner@example.com"/);
  });

  it('links the favicon from every page and serves it', async () => {
    const visitor = new WebClient(t, '10.9.0.2');
    for (const [client, path] of [
      [visitor, '/'],
      [visitor, '/pricing'],
      [visitor, '/terms'],
      [visitor, '/login'],
      [visitor, '/nowhere'],
      [owner, '/account'],
      [owner, '/account/keys'],
    ] as const) {
      const body = (await client.get(path, { accept: 'text/html' })).body;
      assert.match(body, /<link rel="icon" href="\/assets\/favicon\.svg\?v=\d+" type="image\/svg\+xml" \/>/, path);
    }
    const icon = await t.get('/assets/favicon.svg?v=4');
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    assert.match(icon.body, /<svg/);
  });

  it('shows a new key as plain selectable text, with the script that adds a Copy button', async () => {
    await owner.get('/account/keys');
    const created = await owner.post('/account/keys', { name: 'copy me', kind: 'live' });
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /<p class="key-once mono" data-copy="Copy the key" id="new-key">svc_live_\w{32}<\/p>/);
    assert.match(created.body, /<script src="\/assets\/copy\.js\?v=\d+" defer><\/script>/);
    const script = await t.get('/assets/copy.js');
    assert.equal(script.statusCode, 200);
    assert.match(script.body, /navigator\.clipboard/);
    // Pages without a key do not load it.
    assert.doesNotMatch((await owner.get('/account/keys')).body, /copy\.js/);
  });

  it('asks before revoking a key: the unconfirmed post changes nothing', async () => {
    await owner.get('/account/keys');
    const created = await owner.post('/account/keys', { name: 'to revoke', kind: 'live' });
    const secret = /id="new-key"[^>]*>(svc_live_\w+)</.exec(created.body)![1]!;
    const id = (await t.db.pool.query("SELECT id FROM api_keys WHERE name = 'to revoke'")).rows[0].id as string;
    const asked = await owner.post(`/account/keys/${id}/revoke`);
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Revoke the key &quot;to revoke&quot;/);
    assert.match(asked.body, /name="confirm" value="yes"/);
    assert.ok(await keyWorks(secret), 'still works after the unconfirmed post');
    for (const confirm of ['no', '', 'YES'])
      assert.equal((await owner.post(`/account/keys/${id}/revoke`, { confirm })).statusCode, 200);
    assert.ok(await keyWorks(secret));
    const done = await owner.post(`/account/keys/${id}/revoke`, { confirm: 'yes' });
    assert.equal(done.headers.location, '/account/keys?done=key_revoked');
    assert.equal(await keyWorks(secret), false);
    assert.ok(await keyWorks(key), 'the other key is untouched');
  });

  it('asks before cancelling the plan: the unconfirmed post changes nothing', async () => {
    await owner.get('/account/billing');
    const chosen = await owner.post('/account/billing/plan', { plan: 'developer' });
    const pay = new URL(chosen.headers.location as string, t.config.billing.publicBaseUrl).pathname;
    await t.app.http.inject({ method: 'POST', url: `${pay}/complete`, remoteAddress: '10.9.0.1' });
    const state = async () =>
      (await t.db.pool.query("SELECT plan, subscription_status FROM workspaces WHERE name = 'owner@example.com'"))
        .rows[0];
    assert.deepEqual(await state(), { plan: 'developer', subscription_status: 'active' });
    await owner.get('/account/billing');
    const asked = await owner.post('/account/billing/cancel');
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Cancel the Developer subscription\?/);
    assert.deepEqual(await state(), { plan: 'developer', subscription_status: 'active' });
    const done = await owner.post('/account/billing/cancel', { confirm: 'yes' });
    assert.equal(done.headers.location, '/account/billing?done=cancelled');
    assert.deepEqual(await state(), { plan: 'developer', subscription_status: 'cancelled' });
  });

  it('shows the checkout page times as dates and hours, not raw ISO', async () => {
    await owner.get('/account/billing');
    const started = await owner.post('/account/billing/packs', { slug: 'starter' });
    const pathname = new URL(started.headers.location as string, t.config.billing.publicBaseUrl).pathname;
    await t.app.http.inject({ method: 'POST', url: `${pathname}/complete`, remoteAddress: '10.9.0.1' });
    const shown = (await t.app.http.inject({ method: 'GET', url: pathname, remoteAddress: '10.9.0.1' })).body;
    assert.match(shown, /Paid on 2026-03-10 12:00 UTC\./);
    assert.doesNotMatch(shown, /\d{4}-\d\d-\d\dT\d\d:\d\d/);
  });
});
