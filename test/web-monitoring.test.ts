// The account's Monitoring page (docs/web.md): the plan's limits, a workspace's own endpoints, saved
// searches and events, text escaped, another workspace's never shown; a plan without monitoring says so.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setPlan } from '../src/accounts/workspaces.js';
import { deliverDue } from '../src/monitoring/delivery.js';
import { addSavedSearch, createEndpoint, sendTestEvent } from '../src/monitoring/store.js';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

let t: TestApp;
let a: WebClient;
let b: WebClient;

const workspaceOf = async (email: string): Promise<string> =>
  (
    await t.db.pool.query<{ id: string }>(
      `SELECT m.workspace_id AS id FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
      [email],
    )
  ).rows[0]!.id;

before(async () => {
  t = await testApp();
  a = new WebClient(t, '10.4.0.1');
  b = new WebClient(t, '10.4.0.2');
  await a.signUp('ana@example.com');
  await b.signUp('ben@example.com');
});
after(() => t.close());

describe('the Monitoring page', () => {
  it('says which plans have monitoring when this one does not', async () => {
    const res = await a.get('/account/monitoring');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Not on this plan/);
    assert.match(res.body, /Growth/);
  });

  it("shows the workspace's endpoints, saved searches and events against the plan's limits, escaped", async () => {
    const ws = await workspaceOf('ana@example.com');
    await setPlan(t.db.pool, ws, 'growth', t.clock);
    const endpoint = await createEndpoint(
      t.db.pool,
      ws,
      'growth',
      'https://hooks.example.com/in',
      ['entity.updated'],
      true,
    );
    await addSavedSearch(t.db.pool, ws, 'growth', 'Miami <LLCs>', { principal_city: 'MIAMI' });
    const event = await sendTestEvent(t.db.pool, ws, endpoint.id);

    const other = await workspaceOf('ben@example.com');
    await setPlan(t.db.pool, other, 'growth', t.clock);
    await createEndpoint(t.db.pool, other, 'growth', 'https://ben.example.com/secret-hook', ['entity.created'], true);

    const res = await a.get('/account/monitoring');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /https:\/\/hooks\.example\.com\/in/);
    assert.match(res.body, /Miami &lt;LLCs&gt;/);
    assert.ok(!res.body.includes('Miami <LLCs>'), 'the name is escaped');
    assert.match(res.body, new RegExp(event.id));
    assert.match(res.body, /of 5 on this plan/); // Growth's endpoints
    assert.ok(!res.body.includes('ben.example.com'), "another workspace's endpoint is never shown");
  });

  it("shows each endpoint's latest delivery attempts: answer, latency, response excerpt escaped", async () => {
    const ws = await workspaceOf('ana@example.com');
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500).end('<b>receiver down</b>'));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
      const endpoint = await createEndpoint(t.db.pool, ws, 'growth', url, ['entity.updated'], true);
      await sendTestEvent(t.db.pool, ws, endpoint.id);
      await deliverDue(t.db.pool, { allowPrivate: true, retrySeconds: 3600 }, null);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
    const res = await a.get('/account/monitoring');
    assert.match(res.body, /Latest delivery attempts/);
    assert.match(res.body, />500</);
    assert.match(res.body, /HTTP 500/);
    assert.match(res.body, /\d+ ms/);
    assert.match(res.body, /&lt;b&gt;receiver down&lt;\/b&gt;/);
    assert.ok(!res.body.includes('<b>receiver down'), 'the excerpt is escaped');
  });

  it('asks for a session', async () => {
    const res = await t.app.http.inject({ method: 'GET', url: '/account/monitoring' });
    assert.equal(res.statusCode, 303);
  });
});
