// One workspace's session never reads or changes another's keys, usage, logs or billing; the session
// cookie authenticates only the same-origin proxy (with its CSRF token), never /v1 or /mcp; members
// manage keys and see usage while only the owner changes billing.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { testApp, type TestApp } from './support/app.js';
import { lastMail, linkToken, WebClient } from './support/web.js';

let t: TestApp;
let a: WebClient;
let b: WebClient;
let keyA: string;
let keyB: string;

const balance = async (key: string): Promise<number> =>
  (
    await t.app.http.inject({
      method: 'GET',
      url: '/api/v1/billing/balance',
      headers: { authorization: `Bearer ${key}` },
    })
  ).json().data.balance;

before(async () => {
  t = await testApp();
  a = new WebClient(t, '10.1.0.1');
  b = new WebClient(t, '10.1.0.2');
  keyA = await a.signUp('alice@example.com');
  keyB = await b.signUp('bob@example.com');
});
after(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const keyIdOf = async (key: string): Promise<string> =>
  (
    await t.db.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE hint = $1', [
      `${key.slice(0, 13)}…${key.slice(-4)}`,
    ])
  ).rows[0]!.id;

describe('workspaces apart', () => {
  it("lists only its own keys and cannot revoke another workspace's", async () => {
    const page = await a.get('/account/keys');
    assert.match(page.body, new RegExp(keyA.slice(0, 13)));
    assert.doesNotMatch(page.body, new RegExp(keyB.slice(-4) + '<'));
    const res = await a.post(`/account/keys/${await keyIdOf(keyB)}/revoke`);
    assert.equal(res.headers.location, '/account/keys?done=no_such_key');
    assert.equal((await t.get('/v1/account/usage', keyB)).statusCode, 200, "bob's key still works");
  });

  it('sees only its own requests in the log, and its own usage', async () => {
    const call = await t.get('/v1/entities/search?name=acme', keyB);
    await t.app.requestLog.flush();
    const requestId = call.json().meta.request_id;
    const row = new RegExp(`<a href="/account/logs/${requestId}">${requestId}</a>`);
    assert.doesNotMatch((await a.get(`/account/logs?request_id=${requestId}`)).body, row);
    assert.match((await b.get(`/account/logs?request_id=${requestId}`)).body, row);
    // Nor its page in full.
    assert.equal((await a.get(`/account/logs/${requestId}`)).statusCode, 404);
    assert.match(
      (await b.get(`/account/logs/${requestId}`)).body,
      new RegExp(`<dd>GET /v1/entities/search</dd>|${requestId}`),
    );
    assert.match((await a.get('/account')).body, /id="balance">500</);
    assert.match((await b.get('/account')).body, /id="balance">499</);
  });

  it("cannot refund another workspace's pack", async () => {
    const checkout = await b.post('/account/billing/packs', { slug: 'starter' });
    const id = /chk_\w+/.exec(String(checkout.headers.location))![0];
    await t.app.http.inject({ method: 'POST', url: `/checkout/${id}/complete` });
    const res = await a.post(`/account/billing/refunds/${id}`);
    assert.equal(res.statusCode, 404);
    assert.equal(await balance(keyB), 1499, "bob's pack is intact");
  });

  it('cannot choose a workspace it is not a member of', async () => {
    const wsB = (
      await t.db.pool.query<{ id: string }>(`SELECT workspace_id AS id FROM api_keys WHERE id = $1`, [
        await keyIdOf(keyB),
      ])
    ).rows[0]!.id;
    await a.get('/account');
    assert.equal((await a.post('/account/workspace', { workspace_id: wsB })).headers.location, '/account');
    assert.match((await a.get('/account')).body, /id="balance">500</);
  });
});

describe('the session on the API', () => {
  it('never authenticates /v1 or /mcp, with or without its CSRF token', async () => {
    await a.get('/account/playground');
    const headers = { cookie: a.cookieHeader, 'x-csrf-token': a.csrf };
    assert.equal((await t.get('/v1/entities/search?name=acme', undefined, headers)).statusCode, 401);
    const mcp = await t.app.http.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(mcp.statusCode, 401);
  });

  it('calls the proxy only with the CSRF token, on its own workspace, for a credit', async () => {
    await a.get('/account/playground');
    const before = await balance(keyA);
    const noToken = await t.get('/api/v1/entities/search?name=acme', undefined, { cookie: a.cookieHeader });
    assert.equal(noToken.statusCode, 401);
    const ok = await t.get('/api/v1/entities/search?name=acme', undefined, {
      cookie: a.cookieHeader,
      'x-csrf-token': a.csrf,
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(await balance(keyA), before - 1);
    assert.equal(await balance(keyB), 1499, 'nothing of bob');
    const bal = await t.get('/api/v1/billing/balance', undefined, { cookie: a.cookieHeader, 'x-csrf-token': a.csrf });
    assert.equal(bal.json().data.balance, before - 1);
    const other = await t.get('/api/v1/entities/search?name=acme', undefined, {
      cookie: a.cookieHeader,
      'x-csrf-token': b.csrf,
    });
    assert.equal(other.statusCode, 401, "another session's token");
  });
});

describe('members', () => {
  let carol: WebClient;

  it('the owner invites by mail; the invited member joins and manages keys', async () => {
    await a.get('/account/members');
    assert.equal(
      (await a.post('/account/members', { email: 'carol@example.com' })).headers.location,
      '/account/members?done=invited',
    );
    carol = new WebClient(t, '10.1.0.3');
    const token = linkToken(await lastMail(t, 'carol@example.com', /Invitation to the workspace/), 'invite');
    assert.match((await carol.get(`/invite/${token}`)).body, /Join alice@example.com/);
    // Carol has no account: she signs up with the invited address, and verifying it makes her a member.
    await carol.get('/signup');
    await carol.post('/signup', { email: 'carol@example.com', password: 'correct horse battery' });
    const verify = linkToken(await lastMail(t, 'carol@example.com', /Verify/), 'verify');
    await carol.get(`/verify?token=${verify}`);
    const welcome = await carol.post('/verify', { token: verify });
    assert.match(welcome.body, /You joined <strong>alice@example.com<\/strong>/);
    assert.doesNotMatch(welcome.body, /new-key|free trial/, 'no trial workspace of her own');
    const { rows } = await t.db.pool.query(
      `SELECT m.role FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE u.email = 'carol@example.com'`,
    );
    assert.deepEqual(rows, [{ role: 'member' }]);
    assert.match((await carol.get('/account')).body, /id="balance">\d+</);
    await carol.get('/account/keys');
    const created = await carol.post('/account/keys', { name: 'carol key', kind: 'test' });
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /svc_test_/);
    assert.match((await a.get('/account/keys')).body, /carol key/, 'the key is the workspace’s');
    // The link works once.
    assert.equal((await new WebClient(t, '10.1.0.9').get(`/invite/${token}`)).statusCode, 404);
  });

  it('a member cannot change billing, on the pages or through the proxy', async () => {
    await carol.get('/account/billing');
    assert.equal((await carol.post('/account/billing/packs', { slug: 'starter' })).statusCode, 403);
    assert.equal((await carol.post('/account/billing/plan', { plan: 'developer' })).statusCode, 403);
    assert.equal((await carol.post('/account/members', { email: 'dave@example.com' })).statusCode, 403);
    const proxy = await t.app.http.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout-credit-pack',
      headers: { cookie: carol.cookieHeader, 'x-csrf-token': carol.csrf, 'content-type': 'application/json' },
      payload: JSON.stringify({ slug: 'starter' }),
    });
    assert.equal(proxy.statusCode, 403);
    assert.equal(proxy.json().error.code, 'forbidden');
  });

  it('a removed member loses the workspace at once', async () => {
    const carolId = (await t.db.pool.query<{ id: string }>(`SELECT id FROM users WHERE email = 'carol@example.com'`))
      .rows[0]!.id;
    await a.get('/account/members');
    assert.equal(
      (await a.post(`/account/members/${carolId}/remove`)).headers.location,
      '/account/members?done=removed',
    );
    const keys = await carol.get('/account/keys');
    assert.equal(keys.statusCode, 403);
    assert.match(keys.body, /You are in no workspace/);
    assert.doesNotMatch(keys.body, /carol key|First key.*alice/);
    assert.equal((await carol.post(`/account/keys/${await keyIdOf(keyA)}/revoke`)).statusCode, 403);
    assert.equal((await t.get('/v1/account/usage', keyA)).statusCode, 200);
    // She opens a workspace of her own, on the trial, once.
    const opened = await carol.post('/workspaces/own');
    assert.equal(opened.statusCode, 201, opened.body);
    const own = /id="new-key">(svc_live_\w+)</.exec(opened.body)![1]!;
    assert.equal((await t.get('/v1/account/usage', own)).json().data.plan, 'free_trial');
    assert.doesNotMatch((await carol.get('/account/keys')).body, /carol key/);
    await carol.get('/account');
    assert.equal((await carol.post('/workspaces/own')).headers.location, '/account', 'one trial an address');
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM workspace_members m JOIN users u ON u.id = m.user_id
       WHERE u.email = 'carol@example.com' AND m.role = 'owner'`,
    );
    assert.equal(rows[0].n, 1);
  });
});
