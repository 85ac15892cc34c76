// The audit log: key, member, billing and webhook changes recorded with who made them (a member, an API key, the
// operator, a confirmed payment), when and from where; nothing recorded for a change refused; the page shown to every
// member of the workspace and to no one else, a page at a time.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OPERATOR } from '../src/accounts/audit.js';
import { changeEndpoint } from '../src/monitoring/store.js';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

let t: TestApp;
let owner: WebClient;
let ws: string;

before(async () => {
  t = await testApp();
  owner = new WebClient(t, '10.7.0.1');
  await owner.signUp('audit-owner@example.com');
  ws = (await t.db.pool.query<{ id: string }>('SELECT id FROM workspaces')).rows[0]!.id;
});

describe('the first key', () => {
  it("is recorded as its owner's, made at verification", async () => {
    const first = await since(0);
    assert.deepEqual(
      first.map((e) => [e.actor_kind, e.actor_id, e.action, e.detail]),
      [['user', await userId('audit-owner@example.com'), 'key.create', 'First key']],
    );
  });
});
after(() => t.close());
beforeEach(() => t.clock.advance(61_000));

interface Entry {
  actor_kind: string;
  actor_id: string | null;
  action: string;
  target: string | null;
  detail: string | null;
  client_ip: string | null;
}

/** The entries of a workspace written since `id`, oldest first. */
async function since(id: number, workspace = ws): Promise<Entry[]> {
  const { rows } = await t.db.pool.query<Entry>(
    `SELECT actor_kind, actor_id, action, target, detail, client_ip FROM audit_events
     WHERE workspace_id = $1 AND id > $2 ORDER BY id`,
    [workspace, id],
  );
  return rows;
}
const lastId = async () =>
  (await t.db.pool.query<{ n: number }>('SELECT coalesce(max(id), 0)::int AS n FROM audit_events')).rows[0]!.n;
const userId = async (email: string) =>
  (await t.db.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email])).rows[0]!.id;

describe('key changes', () => {
  it('are recorded with the member and their address; refused ones are not', async () => {
    const mark = await lastId();
    await owner.get('/account/keys');
    await owner.post('/account/keys', { name: 'audited', kind: 'live' });
    const id = (await t.db.pool.query<{ id: string }>("SELECT id FROM api_keys WHERE name = 'audited'")).rows[0]!.id;
    assert.equal((await owner.post(`/account/keys/${id}/rename`, { name: '' })).statusCode, 400);
    assert.equal((await owner.post(`/account/keys/${id}/roll`, { grace: 'forever' })).statusCode, 400);
    await owner.post(`/account/keys/${id}/rename`, { name: 'audited again' });
    await owner.post(`/account/keys/${id}/roll`, { grace: '1h' });
    await owner.post(`/account/keys/${id}/revoke`, { confirm: 'yes' });
    await owner.post(`/account/keys/${id}/revoke`, { confirm: 'yes' });
    const me = await userId('audit-owner@example.com');
    const by = { actor_kind: 'user', actor_id: me, target: id, client_ip: '10.7.0.1' };
    assert.deepEqual(await since(mark), [
      { ...by, action: 'key.create', detail: 'audited' },
      { ...by, action: 'key.rename', detail: 'audited again' },
      { ...by, action: 'key.roll', detail: 'previous secret works for 1h' },
      { ...by, action: 'key.revoke', detail: null },
    ]);
    const page = (await owner.get('/account/audit')).body;
    assert.match(page, /audit-owner@example.com[\s\S]*revoked a key[\s\S]*10\.7\.0\.1/);
  });
});

describe('member changes', () => {
  it('invite, accept and removal are recorded; a member sees the log', async () => {
    const mark = await lastId();
    await owner.get('/account/members');
    await owner.post('/account/members', { email: 'audit-member@example.com' });
    const member = new WebClient(t, '10.7.0.2');
    // Invited before signing up: verifying the address accepts the invitation.
    await member.verifiedSignUp('audit-member@example.com');
    const seen = await member.get('/account/audit');
    assert.equal(seen.statusCode, 200);
    assert.match(seen.body, /accepted an invitation/);
    const memberId = await userId('audit-member@example.com');
    await owner.get('/account/members');
    await owner.post(`/account/members/${memberId}/remove`);
    await owner.post(`/account/members/${memberId}/remove`);
    const me = await userId('audit-owner@example.com');
    const entries = await since(mark);
    assert.deepEqual(
      entries.map((e) => [e.actor_id, e.action, e.target, e.client_ip]),
      [
        [me, 'member.invite', 'audit-member@example.com', '10.7.0.1'],
        [memberId, 'member.accept', 'audit-member@example.com', null],
        [me, 'member.remove', 'audit-member@example.com', '10.7.0.1'],
      ],
    );
    // Removed, they see this workspace's log no more.
    assert.doesNotMatch((await member.get('/account/audit')).body, /audit-owner@example.com/);
  });
});

describe('billing changes', () => {
  it('a pack bought, a plan chosen and a cancellation are recorded', async () => {
    const mark = await lastId();
    await owner.get('/account/billing');
    const pay = async (location: string) => {
      const checkout = /\/checkout\/(chk_\w+)$/.exec(location)![1]!;
      const paid = await t.app.http.inject({ method: 'POST', url: `/checkout/${checkout}/complete` });
      assert.equal(paid.statusCode, 303);
      return checkout;
    };
    const pack = await pay(String((await owner.post('/account/billing/packs', { slug: 'starter' })).headers.location));
    const plan = await pay(String((await owner.post('/account/billing/plan', { plan: 'developer' })).headers.location));
    const upgrade = await pay(String((await owner.post('/account/billing/plan', { plan: 'pro' })).headers.location));
    // A downgrade needs no payment: the member's own change, for the next cycle.
    await owner.get('/account/billing');
    const down = await owner.post('/account/billing/plan', { plan: 'developer' });
    assert.doesNotMatch(String(down.headers.location), /checkout/);
    await owner.get('/account/billing');
    assert.equal(
      (await owner.post('/account/billing/cancel', { confirm: 'yes' })).headers.location,
      '/account/billing?done=cancelled',
    );
    const me = await userId('audit-owner@example.com');
    const entries = await since(mark);
    assert.deepEqual(
      entries.map((e) => [e.actor_kind, e.actor_id, e.action, e.target, e.detail]),
      [
        ['system', null, 'billing.pack_bought', 'starter', `checkout ${pack}`],
        ['system', null, 'billing.plan_change', 'developer', 'subscribe from free_trial'],
        ['system', null, 'billing.plan_change', 'pro', 'upgrade from developer'],
        ['user', me, 'billing.plan_change', 'developer', 'downgrade from pro'],
        ['user', me, 'billing.cancel', 'pro', null],
      ],
    );
    assert.notEqual(plan, upgrade);
  });
});

describe('webhook changes', () => {
  it('by an API key over REST and by the operator are recorded; refused ones are not', async () => {
    const growth = await t.workspace('growth');
    const call = (method: 'POST' | 'DELETE', url: string, body?: unknown) =>
      t.app.http.inject({
        method,
        url,
        remoteAddress: '192.0.2.44',
        headers: {
          authorization: `Bearer ${growth.key.key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
    const made = await call('POST', '/v1/webhooks', { url: 'https://hooks.example.com/audit' });
    assert.equal(made.statusCode, 200, made.body);
    const id = made.json().data.id as string;
    assert.equal((await call('POST', '/v1/webhooks', { url: 'http://hooks.example.com/x' })).statusCode, 400);
    await call('POST', `/v1/webhooks/${id}/pause`);
    await call('POST', `/v1/webhooks/${id}/resume`);
    await call('POST', `/v1/webhooks/${id}/rotate-secret`);
    await changeEndpoint(t.db.pool, growth.workspace.id, id, 'pause', OPERATOR);
    await call('DELETE', `/v1/webhooks/${id}`);
    assert.equal((await call('DELETE', `/v1/webhooks/${id}`)).statusCode, 404);
    const key = growth.key.id;
    assert.deepEqual(
      (await since(0, growth.workspace.id)).map((e) => [e.actor_kind, e.actor_id, e.action, e.target, e.client_ip]),
      [
        ['key', key, 'webhook.add', id, '192.0.2.44'],
        ['key', key, 'webhook.pause', id, '192.0.2.44'],
        ['key', key, 'webhook.resume', id, '192.0.2.44'],
        ['key', key, 'webhook.rotate', id, '192.0.2.44'],
        ['operator', null, 'webhook.pause', id, null],
        ['key', key, 'webhook.delete', id, '192.0.2.44'],
      ],
    );
  });
});

describe('the page', () => {
  it('pages newest first, refuses a malformed link, and shows no other workspace', async () => {
    const other = await t.workspace('pro');
    await t.db.pool.query(
      `INSERT INTO audit_events (workspace_id, at, actor_kind, action, target)
       SELECT $1, $2::timestamptz + make_interval(secs => i), 'operator', 'key.create',
              'key_page' || lpad(i::text, 3, '0')
       FROM generate_series(1, 120) i
       UNION ALL SELECT $3, $2, 'operator', 'key.create', 'key_elsewhere'`,
      [ws, t.clock.now(), other.workspace.id],
    );
    const targets = (body: string) => [...body.matchAll(/<td class="mono">(key_page\d+)<\/td>/g)].map((m) => m[1]);
    const first = await owner.get('/account/audit');
    assert.deepEqual(targets(first.body).slice(0, 3), ['key_page120', 'key_page119', 'key_page118']);
    assert.equal(targets(first.body).length, 50);
    const older = /href="(\/account\/audit\?before=\d+)">Older</.exec(first.body)![1]!;
    const second = await owner.get(older);
    assert.equal(targets(second.body)[0], 'key_page070');
    const third = await owner.get(/href="(\/account\/audit\?before=\d+)">Older</.exec(second.body)![1]!);
    assert.equal(targets(third.body).at(-1), 'key_page001');
    assert.doesNotMatch(third.body, /key_elsewhere/);
    for (const bad of ['abc', '-1', '0', '1e3']) {
      const res = await owner.get(`/account/audit?before=${bad}`);
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /This page link is malformed/);
    }
    const stranger = await new WebClient(t, '10.7.0.9').get('/account/audit');
    assert.equal(stranger.statusCode, 303);
  });
});
