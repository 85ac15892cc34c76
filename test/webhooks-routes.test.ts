// The monitoring routes (docs/webhooks.md): by key, not metered, zod-validated with the error envelope, in
// OpenAPI; the events listing as an MCP-metered operation.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { deliverDue } from '../src/monitoring/delivery.js';
import { createEndpoint } from '../src/monitoring/store.js';
import { sendTestEvent } from '../src/monitoring/event-log.js';
import { testApp, type TestApp } from './support/app.js';
import { loadFixture } from './support/fixture.js';

let t: TestApp;
let key: string;
let workspace: string;

before(async () => {
  t = await testApp({ env: { WEBHOOKS_ALLOW_PRIVATE: '0' } });
  await loadFixture(t.db.pool);
  const w = await t.workspace('growth');
  key = w.key.key;
  workspace = w.workspace.id;
});
after(() => t.close());

const call = (method: 'POST' | 'DELETE' | 'GET', url: string, body?: unknown, k = key) =>
  t.app.http.inject({
    method,
    url,
    headers: { authorization: `Bearer ${k}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const count = async (table: string): Promise<number> =>
  (await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspace]))
    .rows[0]!.n;

describe('monitoring routes', () => {
  it('registers an endpoint (secret once), lists, rotates, pauses, deletes', async () => {
    const created = await call('POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/registry',
      event_types: ['entity.updated'],
    });
    assert.equal(created.statusCode, 200, created.body);
    const ep = created.json().data;
    assert.match(ep.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(ep.event_types, ['entity.updated']);
    const listed = (await call('GET', '/v1/webhooks')).json().data;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].secret, undefined, 'never listed');
    const rotated = (await call('POST', `/v1/webhooks/${ep.id}/rotate-secret`)).json().data;
    assert.notEqual(rotated.secret, ep.secret);
    assert.equal((await call('POST', `/v1/webhooks/${ep.id}/pause`)).json().data.paused, true);
    assert.equal((await call('POST', `/v1/webhooks/${ep.id}/resume`)).json().data.paused, false);
    const ping = await call('POST', `/v1/webhooks/${ep.id}/test`);
    assert.equal(ping.json().data.type, 'ping');
    assert.equal((await call('DELETE', `/v1/webhooks/${ep.id}`)).json().data.deleted, true);
    assert.equal((await call('DELETE', `/v1/webhooks/${ep.id}`)).statusCode, 404);
  });

  it('refuses bad input with the error envelope and changes nothing', async () => {
    const before = [await count('webhook_endpoints'), await count('watched_entities'), await count('saved_searches')];
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/v1/webhooks', { url: 'http://hooks.example.com/x' }, 400, 'url'],
      ['POST', '/v1/webhooks', { url: 'https://169.254.169.254/latest' }, 400, 'url'],
      [
        'POST',
        '/v1/webhooks',
        { url: 'https://hooks.example.com/x', event_types: ['entity.deleted'] },
        400,
        'event_types.0',
      ],
      ['POST', '/v1/webhooks', { url: 'https://hooks.example.com/x', extra: 1 }, 400, '(request)'],
      ['POST', '/v1/watches/entities', { document_number: 'X00000000000' }, 404, ''],
      ['POST', '/v1/watches/entities', { document_number: 'no!' }, 400, 'document_number'],
      ['POST', '/v1/watches/searches', { name: 'x', search: { status: ['zz'] } }, 400, 'search.status'],
      ['POST', '/v1/watches/searches', { name: 'x', search: { colour: 'red' } }, 400, 'colour'],
    ];
    for (const [method, url, body, status, field] of cases) {
      const res = await call(method as 'POST', url, body);
      assert.equal(res.statusCode, status, `${url} ${JSON.stringify(body)}: ${res.body}`);
      const err = res.json().error;
      assert.ok(err.code && err.message && err.request_id, res.body);
      if (status === 400 && field !== '(request)')
        assert.ok(
          Object.keys(err.details ?? {}).some((k) => k.startsWith(field)),
          res.body,
        );
    }
    assert.deepEqual(
      [await count('webhook_endpoints'), await count('watched_entities'), await count('saved_searches')],
      before,
    );
    const dev = await t.workspace('developer');
    const refused = await call('POST', '/v1/webhooks', { url: 'https://hooks.example.com/x' }, dev.key.key);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.code, 'forbidden');
  });

  it('watches an entity and a search, lists events for a credit, documents it all in OpenAPI', async () => {
    const doc = (await t.db.pool.query<{ d: string }>('SELECT document_number AS d FROM registry.entities LIMIT 1'))
      .rows[0]!.d;
    const watched = await call('POST', '/v1/watches/entities', { document_number: doc.toLowerCase() });
    assert.equal(watched.statusCode, 200, watched.body);
    assert.equal(watched.json().data.document_number, doc);
    const saved = await call('POST', '/v1/watches/searches', {
      name: 'Miami LLCs',
      search: { principal_city: 'MIAMI', entity_type: ['FLAL'], status: 'active' },
    });
    assert.equal(saved.statusCode, 200, saved.body);
    assert.deepEqual(saved.json().data.params, { principal_city: 'MIAMI', entity_type: ['FLAL'], status: ['active'] });
    assert.equal((await call('GET', '/v1/watches/entities')).json().data.length, 1);
    assert.equal((await call('GET', '/v1/watches/searches')).json().data.length, 1);
    const before = (await call('GET', '/v1/account/usage')).json().data;
    const events = await call('GET', '/v1/watches/events?type=entity.updated');
    assert.equal(events.statusCode, 200, events.body);
    const afterUsage = (await call('GET', '/v1/account/usage')).json().data;
    assert.notDeepEqual(afterUsage, before, 'the events listing is metered');
    assert.equal((await call('DELETE', `/v1/watches/entities/${doc}`)).statusCode, 200);
    assert.equal((await call('DELETE', `/v1/watches/searches/${saved.json().data.id}`)).statusCode, 200);

    const spec = (await t.get('/v1/openapi.json')).json();
    assert.ok(spec.paths['/webhooks'].get && spec.paths['/webhooks'].post);
    assert.deepEqual(spec.paths['/webhooks'].post.requestBody.content['application/json'].schema.required, ['url']);
    assert.ok(spec.paths['/watches/entities/{document_number}'].delete);
    assert.equal(spec.paths['/watches/events'].get['x-mcp-tool'], 'list_watch_events');
  });

  it("reads an endpoint's delivery log: newest first, status, latency, excerpt, attempt number", async () => {
    let calls = 0;
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        if (calls === 1) res.writeHead(503).end('busy, try later');
        else res.writeHead(200).end('ok thanks');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      // Loopback is refused to the REST route here (WEBHOOKS_ALLOW_PRIVATE=0), so the store registers it.
      const ep = await createEndpoint(t.db.pool, workspace, 'growth', url, ['entity.updated'], true, OPERATOR);
      const ping = await sendTestEvent(t.db.pool, workspace, ep.id);
      const settings = { allowPrivate: true, retrySeconds: 0.05 };
      await deliverDue(t.db.pool, settings, null);
      await new Promise((r) => setTimeout(r, 100));
      await deliverDue(t.db.pool, settings, null);
      assert.equal(calls, 2);

      const res = await call('GET', `/v1/webhooks/${ep.id}/deliveries`);
      assert.equal(res.statusCode, 200, res.body);
      const { data, pagination } = res.json();
      assert.equal(pagination.total, 2);
      assert.deepEqual(
        data.map((a: Record<string, unknown>) => [a.event_id, a.attempt, a.status_code, a.response_excerpt, a.error]),
        [
          [ping.id, 2, 200, 'ok thanks', null],
          [ping.id, 1, 503, 'busy, try later', 'HTTP 503'],
        ],
      );
      assert.ok(data.every((a: { latency_ms: number }) => Number.isInteger(a.latency_ms) && a.latency_ms >= 0));
      assert.equal(data[0].delivery_status, 'delivered');
      assert.equal(data[0].event_type, 'ping');
      const second = (await call('GET', `/v1/webhooks/${ep.id}/deliveries?limit=1&offset=1`)).json();
      assert.equal(second.data[0].attempt, 1);
      assert.equal(second.pagination.has_more, false);

      assert.equal((await call('GET', '/v1/webhooks/we_0123456789abcdef0123/deliveries')).statusCode, 404);
      assert.equal((await call('GET', '/v1/webhooks/nope/deliveries')).statusCode, 400);
      assert.equal((await call('GET', `/v1/webhooks/${ep.id}/deliveries?limit=0`)).statusCode, 400);
      const other = await t.workspace('growth');
      const foreign = await call('GET', `/v1/webhooks/${ep.id}/deliveries`, undefined, other.key.key);
      assert.equal(foreign.statusCode, 404, 'another workspace never reads this log');
      const spec = (await t.get('/v1/openapi.json')).json();
      assert.ok(spec.paths['/webhooks/{id}/deliveries'].get);
      await call('DELETE', `/v1/webhooks/${ep.id}`);
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });
});
