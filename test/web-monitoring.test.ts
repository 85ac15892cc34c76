// The account's Monitoring page (docs/web.md): the plan's limits, a workspace's own endpoints, saved
// searches and events, text escaped, another workspace's never shown; a plan without monitoring says so.
// Its forms: each change made and shown, the secret once; each bad input refused under its field, nothing
// changed; another workspace's ids name nothing.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setPlan } from '../src/accounts/workspaces.js';
import { deliverDue } from '../src/monitoring/delivery.js';
import { addSavedSearch, createEndpoint } from '../src/monitoring/store.js';
import { sendTestEvent } from '../src/monitoring/event-log.js';
import { testApp, type TestApp } from './support/app.js';
import { loadFixture } from './support/fixture.js';
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
  await loadFixture(t.db.pool);
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
      OPERATOR,
    );
    await addSavedSearch(t.db.pool, ws, 'growth', 'Miami <LLCs>', { principal_city: 'MIAMI' });
    const event = await sendTestEvent(t.db.pool, ws, endpoint.id);

    const other = await workspaceOf('ben@example.com');
    await setPlan(t.db.pool, other, 'growth', t.clock);
    await createEndpoint(
      t.db.pool,
      other,
      'growth',
      'https://ben.example.com/secret-hook',
      ['entity.created'],
      true,
      OPERATOR,
    );

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
      const endpoint = await createEndpoint(t.db.pool, ws, 'growth', url, ['entity.updated'], true, OPERATOR);
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

describe('the Monitoring forms', () => {
  const count = async (table: string, ws: string): Promise<number> =>
    (await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [ws]))
      .rows[0]!.n;
  const endpointOf = async (ws: string, url: string) =>
    (
      await t.db.pool.query<{ id: string; secret: string; paused: boolean }>(
        `SELECT id, secret, paused_at IS NOT NULL AS paused FROM webhook_endpoints
         WHERE workspace_id = $1 AND url = $2`,
        [ws, url],
      )
    ).rows[0];
  let c: WebClient;
  let ws: string;

  before(async () => {
    c = new WebClient(t, '10.4.0.3');
    await c.signUp('cleo@example.com');
    ws = await workspaceOf('cleo@example.com');
  });

  it('refuses every change on a plan without monitoring, saying so', async () => {
    await c.get('/account/monitoring');
    const res = await c.post('/account/monitoring/webhooks', {
      url: 'https://hooks.example.com/cleo',
      event_types: ['entity.updated'],
    });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Not on this plan/);
    assert.equal(await count('webhook_endpoints', ws), 0);
  });

  it('registers an endpoint and shows its secret once', async () => {
    await setPlan(t.db.pool, ws, 'growth', t.clock);
    await c.get('/account/monitoring');
    const res = await c.post('/account/monitoring/webhooks', {
      url: 'https://hooks.example.com/cleo',
      event_types: ['entity.updated', 'saved_search.match'],
    });
    assert.equal(res.statusCode, 201);
    const shown = /id="new-secret">([^<]+)</.exec(res.body)?.[1];
    const stored = await endpointOf(ws, 'https://hooks.example.com/cleo');
    assert.ok(stored && shown === stored.secret, 'the secret shown is the one that signs');
    assert.match(res.body, /entity\.updated, saved_search\.match/);
    const again = await c.get('/account/monitoring');
    assert.ok(!again.body.includes(stored.secret), 'the secret is shown only once');
  });

  it('refuses bad endpoints under their field, nothing written', async () => {
    const cases: Array<[Record<string, string | string[]>, number, RegExp]> = [
      [{ url: '', event_types: ['entity.updated'] }, 400, /Enter the endpoint/],
      [{ url: 'http://hooks.example.com/x', event_types: ['entity.updated'] }, 400, /https/],
      [{ url: 'https://127.0.0.1/x', event_types: ['entity.updated'] }, 400, /The URL/],
      [{ url: 'https://hooks.example.com/x' }, 400, /Choose at least one event type/],
      [{ url: 'https://hooks.example.com/x', event_types: ['entity.deleted'] }, 400, /must be one of/],
      [{ url: 'https://hooks.example.com/x', event_types: ['entity.updated'], _csrf: 'forged' }, 403, /expired/],
    ];
    for (const [fields, status, message] of cases) {
      await c.get('/account/monitoring');
      const res = await c.post('/account/monitoring/webhooks', fields);
      assert.equal(res.statusCode, status, JSON.stringify(fields));
      assert.match(res.body, message, JSON.stringify(fields));
      if (status === 400) assert.match(res.body, /field-error/);
    }
    assert.equal(await count('webhook_endpoints', ws), 1);
  });

  it('pauses, resumes, tests, rotates and deletes an endpoint', async () => {
    const url = 'https://hooks.example.com/cleo';
    const { id, secret } = (await endpointOf(ws, url))!;
    await c.get('/account/monitoring');
    let res = await c.post(`/account/monitoring/webhooks/${id}/pause`);
    assert.equal(res.headers.location, '/account/monitoring?done=paused');
    assert.equal((await endpointOf(ws, url))!.paused, true);
    assert.match((await c.get(res.headers.location)).body, /is paused/);
    res = await c.post(`/account/monitoring/webhooks/${id}/resume`);
    assert.equal(res.headers.location, '/account/monitoring?done=resumed');
    assert.equal((await endpointOf(ws, url))!.paused, false);
    res = await c.post(`/account/monitoring/webhooks/${id}/test`);
    assert.equal(res.headers.location, '/account/monitoring?done=tested');
    assert.match((await c.get(res.headers.location)).body, />ping</);
    res = await c.post(`/account/monitoring/webhooks/${id}/rotate`);
    const rotated = (await endpointOf(ws, url))!.secret;
    assert.notEqual(rotated, secret);
    assert.ok(res.body.includes(`id="new-secret">${rotated}<`));
    res = await c.post(`/account/monitoring/webhooks/${id}/delete`);
    assert.equal(res.headers.location, '/account/monitoring?done=deleted');
    assert.equal(await endpointOf(ws, url), undefined);
  });

  it("answers another workspace's endpoint, or none, as not found, changing nothing", async () => {
    const other = await workspaceOf('ben@example.com');
    const theirs = (await endpointOf(other, 'https://ben.example.com/secret-hook'))!;
    await c.get('/account/monitoring');
    for (const action of ['pause', 'rotate', 'delete', 'test']) {
      const res = await c.post(`/account/monitoring/webhooks/${theirs.id}/${action}`);
      assert.equal(res.headers.location, '/account/monitoring?done=not_found', action);
    }
    const after = (await endpointOf(other, 'https://ben.example.com/secret-hook'))!;
    assert.deepEqual(after, theirs);
    const res = await c.post('/account/monitoring/webhooks/not-an-id/pause');
    assert.equal(res.headers.location, '/account/monitoring?done=not_found');
    assert.match((await c.get(res.headers.location!)).body, /no such endpoint/);
  });

  it('watches an entity and stops watching it; refuses unknown and malformed numbers', async () => {
    const doc = (await t.db.pool.query<{ d: string }>('SELECT document_number AS d FROM registry.entities LIMIT 1'))
      .rows[0]!.d;
    await c.get('/account/monitoring');
    let res = await c.post('/account/monitoring/watches', { document_number: 'X00000000000' });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /No entity has document number X00000000000/);
    assert.match(res.body, /value="X00000000000"/, 'the input is sent back');
    res = await c.post('/account/monitoring/watches', { document_number: 'no!' });
    assert.equal(res.statusCode, 400);
    assert.equal(await count('watched_entities', ws), 0);
    res = await c.post('/account/monitoring/watches', { document_number: doc.toLowerCase() });
    assert.equal(res.headers.location, '/account/monitoring?done=watched');
    assert.match((await c.get(res.headers.location)).body, new RegExp(`>${doc}<`));
    res = await c.post(`/account/monitoring/watches/${doc}/remove`);
    assert.equal(res.headers.location, '/account/monitoring?done=unwatched');
    assert.equal(await count('watched_entities', ws), 0);
  });

  it('saves a search from its filters and deletes it; refuses bad filters under their field', async () => {
    await c.get('/account/monitoring');
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ label: 'Nothing', name: '', status: '' }, /Fill in at least one filter/],
      [{ label: '', principal_city: 'MIAMI' }, /search-label[\s\S]*field-error/],
      [{ label: 'Dates', filed_after: '2026-13-45' }, /search-filed_after[\s\S]*field-error/],
      [{ label: 'Types', entity_type: 'flal!' }, /search-entity_type[\s\S]*field-error/],
      [{ label: 'Status', status: 'sleeping' }, /search-status[\s\S]*field-error/],
    ];
    for (const [fields, message] of bad) {
      const res = await c.post('/account/monitoring/searches', fields);
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      assert.match(res.body, message, JSON.stringify(fields));
    }
    assert.equal(await count('saved_searches', ws), 0);
    const res = await c.post('/account/monitoring/searches', {
      label: 'New Miami LLCs',
      principal_city: 'MIAMI',
      entity_type: 'FLAL',
      status: 'active',
      name: '',
    });
    assert.equal(res.headers.location, '/account/monitoring?done=search_saved');
    const saved = (await t.db.pool.query('SELECT id, name, params FROM saved_searches WHERE workspace_id = $1', [ws]))
      .rows[0];
    assert.deepEqual(saved.params, { principal_city: 'MIAMI', entity_type: ['FLAL'], status: ['active'] });
    assert.equal(saved.name, 'New Miami LLCs');
    const del = await c.post(`/account/monitoring/searches/${saved.id}/delete`);
    assert.equal(del.headers.location, '/account/monitoring?done=search_deleted');
    assert.equal(await count('saved_searches', ws), 0);
  });

  it('replays an event under its id', async () => {
    const endpoint = await createEndpoint(
      t.db.pool,
      ws,
      'growth',
      'https://hooks.example.com/r',
      ['entity.updated'],
      true,
      OPERATOR,
    );
    const event = await sendTestEvent(t.db.pool, ws, endpoint.id);
    await t.db.pool.query(`UPDATE webhook_deliveries SET status = 'delivered' WHERE event_id = $1`, [event.id]);
    await c.get('/account/monitoring');
    const res = await c.post(`/account/monitoring/events/${event.id}/replay`);
    assert.equal(res.headers.location, '/account/monitoring?done=replayed');
    const { rows } = await t.db.pool.query('SELECT status FROM webhook_deliveries WHERE event_id = $1', [event.id]);
    assert.deepEqual(rows, [{ status: 'pending' }]);
    const none = await c.post('/account/monitoring/events/evt_0000/replay');
    assert.equal(none.headers.location, '/account/monitoring?done=not_found');
  });
});
