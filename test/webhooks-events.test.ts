// Events a customer builds on (docs/webhooks.md, "Event order", "Routes", "Retries"): each workspace's events
// numbered in the order written and resumed after a number, one event read by id, 410 Gone pausing its endpoint
// with the owner mailed, a time range replayed (or its failed deliveries alone) with the attempts counted again,
// and the watches paged.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deliverDue } from '../src/monitoring/delivery.js';
import { MAX_REPLAY_DELIVERIES, sendTestEvent } from '../src/monitoring/event-log.js';
import { OPERATOR } from '../src/accounts/audit.js';
import { addWatch, createEndpoint } from '../src/monitoring/store.js';
import { importRegistry } from '../src/main/importer.js';
import { testApp, type TestApp } from './support/app.js';
import { corporate, fileOf } from './support/records.js';

const SETTINGS = { allowPrivate: true, retrySeconds: 0.05 };
const DOCS = ['L26000000101', 'L26000000102', 'L26000000103'];

let t: TestApp;
let dir: string;
let receiver: http.Server;
/** What the receiver answers next, by path. */
const answers = new Map<string, number>();
const got: Array<{ path: string; id: string; sequence: number }> = [];

before(async () => {
  t = await testApp({ env: { WEBHOOKS_ALLOW_PRIVATE: '1' } });
  dir = await mkdtemp(path.join(tmpdir(), 'rl-events-'));
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; sequence: number };
      got.push({ path: req.url!, id: body.id, sequence: body.sequence });
      res.writeHead(answers.get(req.url!) ?? 200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});
after(async () => {
  receiver.close();
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const url = (at: string): string => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${at}`;
const call = (method: 'GET' | 'POST', route: string, key: string, body?: unknown) =>
  t.app.http.inject({
    method,
    url: route,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

async function importDay(name: string, names: string[]): Promise<void> {
  const file = path.join(dir, name);
  const lines = DOCS.map((doc, i) => corporate({ doc, name: names[i]!, city: 'MIAMI', fileDate: '09282026' }));
  await writeFile(file, fileOf(lines));
  await importRegistry(t.db.pool, [file]);
}

/** Workspace-owned rows of a table, for "changes nothing". */
const deliveryState = async (workspace: string) =>
  (
    await t.db.pool.query(
      `SELECT d.id, d.status, d.attempts FROM webhook_deliveries d JOIN monitoring_events m ON m.id = d.event_id
       WHERE m.workspace_id = $1 ORDER BY d.id`,
      [workspace],
    )
  ).rows;

describe('events a customer builds on', () => {
  let a: { id: string; key: string };
  let b: { id: string; key: string };

  it('numbers each workspace’s events in the order written; resumes after a number; reads one by id', async () => {
    await importDay('20261001c.txt', ['ALPHA ONE LLC', 'BETA TWO LLC', 'GAMMA THREE LLC']);
    const make = async () => {
      const w = await t.workspace('growth');
      return { id: w.workspace.id, key: w.key.key };
    };
    [a, b] = [await make(), await make()];
    for (const doc of DOCS) await addWatch(t.db.pool, a.id, 'growth', doc);
    await addWatch(t.db.pool, b.id, 'growth', DOCS[1]!);
    const hook = await createEndpoint(t.db.pool, a.id, 'growth', url('/a'), ['entity.updated'], true, OPERATOR);
    await importDay('20261002c.txt', ['ALPHA ONE HOLDINGS LLC', 'BETA TWO HOLDINGS LLC', 'GAMMA THREE HOLDINGS LLC']);
    // Twenty pings at once after the import: each gets its own next number.
    await Promise.all(Array.from({ length: 20 }, () => sendTestEvent(t.db.pool, a.id, hook.id)));

    const all = await call('GET', '/v1/watches/events?limit=200', a.key);
    assert.equal(all.statusCode, 200, all.body);
    const listed = all.json().data as Array<{ id: string; sequence: number; type: string; payload: any }>;
    assert.deepEqual(
      listed.map((e) => e.sequence),
      Array.from({ length: 23 }, (_, i) => 23 - i),
      'numbered 1..23, newest first',
    );
    // The import's events come first, in the order the importer wrote them (by document number).
    const oldest = listed.slice(-3).reverse();
    assert.deepEqual(
      oldest.map((e) => [e.type, e.payload.data.document_number]),
      DOCS.map((d) => ['entity.updated', d]),
    );
    assert.ok(
      listed.every((e) => e.payload.sequence === e.sequence),
      'the body carries the number too',
    );
    const other = (await call('GET', '/v1/watches/events', b.key)).json().data;
    assert.deepEqual(
      other.map((e: { sequence: number }) => e.sequence),
      [1],
      'another workspace counts its own',
    );

    const resumed = await call('GET', '/v1/watches/events?after_sequence=20&limit=2', a.key);
    assert.deepEqual(
      resumed.json().data.map((e: { sequence: number }) => e.sequence),
      [21, 22],
      'oldest first after the number',
    );
    assert.equal(resumed.json().pagination.total, 3);

    // Deliveries carry the number; a receiver can read the event back by its id.
    await deliverDue(t.db.pool, SETTINGS, null);
    const delivered = got.find((g) => g.path === '/a')!;
    const one = await call('GET', `/v1/watches/events/${delivered.id}`, a.key);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.json().data.sequence, delivered.sequence);
    assert.equal(one.json().data.deliveries[0].status, 'delivered');
    assert.equal((await call('GET', `/v1/watches/events/${delivered.id}`, b.key)).statusCode, 404, 'not B’s');
    const unknown = await call('GET', '/v1/watches/events/evt_0123456789abcdef', a.key);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'not_found');
    const bad = await call('GET', '/v1/watches/events/nope', a.key);
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.json().error.details.id, bad.body);
    assert.equal((await call('GET', '/v1/watches/events?after_sequence=-1', a.key)).statusCode, 400);
  });

  it('pauses an endpoint that answers 410 Gone after one attempt, and mails the owner', async () => {
    await t.db.pool.query(
      `INSERT INTO users (id, email, password_hash, created_at, password_changed_at)
       VALUES ('usr_gone', 'gone-owner@example.com', 'x', now(), now())`,
    );
    await t.db.pool.query(
      `INSERT INTO workspace_members (workspace_id, user_id, role, created_at) VALUES ($1, 'usr_gone', 'owner', now())`,
      [b.id],
    );
    answers.set('/gone', 410);
    const hook = await createEndpoint(t.db.pool, b.id, 'growth', url('/gone'), ['entity.updated'], true, OPERATOR);
    const first = await sendTestEvent(t.db.pool, b.id, hook.id);
    const second = await sendTestEvent(t.db.pool, b.id, hook.id);
    const mails: string[] = [];
    const mailer = {
      send: async (m: { to: string; subject: string; text: string }) => void mails.push(`${m.to}: ${m.text}`),
      close: () => {},
    };
    await deliverDue(t.db.pool, SETTINGS, mailer);
    const { rows } = await t.db.pool.query(
      `SELECT d.status, d.attempts, p.paused_reason FROM webhook_deliveries d
       JOIN webhook_endpoints p ON p.id = d.endpoint_id WHERE d.event_id = ANY($1) ORDER BY d.attempts DESC`,
      [[first.id, second.id]],
    );
    // Both were in flight together (the endpoint takes 2): both failed at once, never retried.
    assert.deepEqual(rows, [
      { status: 'failed', attempts: 1, paused_reason: 'gone' },
      { status: 'failed', attempts: 1, paused_reason: 'gone' },
    ]);
    assert.equal(mails.length, 1, mails.join('\n'));
    assert.match(mails[0]!, /^gone-owner@example\.com: .*410 Gone/);
    const listed = (await call('GET', '/v1/webhooks', b.key)).json().data;
    assert.deepEqual(
      listed.map((e: { paused: boolean; paused_reason: string }) => [e.paused, e.paused_reason]),
      [[true, 'gone']],
    );
  });

  it('replays a time range, or its failed deliveries alone, counting attempts from the first', async () => {
    const hook = (await call('GET', '/v1/webhooks', b.key)).json().data[0].id as string;
    answers.set('/gone', 200);
    await call('POST', `/v1/webhooks/${hook}/resume`, b.key);
    const since = '2026-01-01T00:00:00Z';
    const before = await deliveryState(b.id);

    const refusals: Array<[unknown, number, string]> = [
      [{}, 400, 'since'],
      [{ since: 'yesterday' }, 400, 'since'],
      [{ since, until: '2025-12-31T00:00:00Z' }, 400, 'until'],
      [{ since, status: 'delivered' }, 400, 'status'],
      [{ since, endpoint_id: 'we_0123456789abcdef0123' }, 404, ''],
    ];
    for (const [body, status, field] of refusals) {
      const res = await call('POST', '/v1/webhooks/events/replay', b.key, body);
      assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      if (field) assert.ok(res.json().error.details[field], res.body);
    }
    const foreign = await call('POST', '/v1/webhooks/events/replay', a.key, { since, endpoint_id: hook });
    assert.equal(foreign.statusCode, 404, 'another workspace’s endpoint');
    assert.deepEqual(await deliveryState(b.id), before, 'a refusal changes nothing');

    const failed = await call('POST', '/v1/webhooks/events/replay', b.key, { since, status: 'failed' });
    assert.equal(failed.statusCode, 200, failed.body);
    assert.deepEqual(failed.json().data, { events: 2, deliveries: 2 });
    const restarted = await deliveryState(b.id);
    assert.ok(
      restarted.every((d: { status: string; attempts: number }) => d.status === 'pending' && d.attempts === 0),
      JSON.stringify(restarted),
    );
    got.length = 0;
    await deliverDue(t.db.pool, SETTINGS, null);
    assert.equal(got.filter((g) => g.path === '/gone').length, 2);
    // Nothing in a range before the events: nothing replayed.
    const empty = { since: '2020-01-01T00:00:00Z', until: '2020-01-02T00:00:00Z' };
    assert.deepEqual((await call('POST', '/v1/webhooks/events/replay', b.key, empty)).json().data, {
      events: 0,
      deliveries: 0,
    });
    // Everything of the range to the one endpoint, delivered or not: the two pings again, and the import's event,
    // written before the endpoint existed, sent to it for the first time.
    const everything = await call('POST', '/v1/webhooks/events/replay', b.key, { since, endpoint_id: hook });
    assert.deepEqual(everything.json().data, { events: 3, deliveries: 3 });
  });

  it('refuses a range of more than the most deliveries replayed at once, and changes nothing', async () => {
    const w = await t.workspace('growth');
    const hook = await createEndpoint(
      t.db.pool,
      w.workspace.id,
      'growth',
      url('/many'),
      ['entity.updated'],
      true,
      OPERATOR,
    );
    await t.db.pool.query(
      `WITH e AS (
         INSERT INTO monitoring_events (id, workspace_id, type, sequence, payload)
         SELECT 'evt_many' || n, $1, 'entity.updated', n, '{}' FROM generate_series(1, $3::int) n RETURNING id)
       INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts) SELECT id, $2, 'failed', 7 FROM e`,
      [w.workspace.id, hook.id, MAX_REPLAY_DELIVERIES + 1],
    );
    const res = await call('POST', '/v1/webhooks/events/replay', w.key.key, { since: '2026-01-01T00:00:00Z' });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error.details.since, /10001 deliveries; at most 10000/);
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'failed' AND attempts = 7`,
      [hook.id],
    );
    assert.equal(rows[0].n, MAX_REPLAY_DELIVERIES + 1);
  });

  it('pages the watched entities', async () => {
    const page = await call('GET', '/v1/watches/entities?limit=2&offset=1', a.key);
    assert.equal(page.statusCode, 200, page.body);
    assert.deepEqual(
      page.json().data.map((w: { document_number: string }) => w.document_number),
      DOCS.slice(1),
    );
    assert.deepEqual(page.json().pagination, { limit: 2, offset: 1, total: 3, has_more: false, next_cursor: null });
    assert.equal((await call('GET', '/v1/watches/entities?limit=0', a.key)).statusCode, 400);
  });
});
