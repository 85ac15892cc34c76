// Settlement as an answer leaves, and idempotency keys (docs/contract.md, "What a client can rely on"): an answer
// whose client is gone is not charged, a charged answer has its log row, a key gives its answer again for free,
// and refunds the database refused are written once it answers.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { Gate } from '../src/accounts/gate.js';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { findRequestLog } from '../src/accounts/request-log.js';
import { Settlement } from '../src/accounts/settlement.js';
import { loadFixture } from './support/fixture.js';
import { PEPPER, testApp, type TestApp } from './support/app.js';

let t: TestApp;
let base: string;

before(async () => {
  t = await testApp();
  await loadFixture(t.db.pool);
  base = await t.app.http.listen({ host: '127.0.0.1', port: 0 });
});
after(() => t.close());

const DETAIL = '/v1/entities/L20000000001';
const remaining = async (ws: string): Promise<number> => (await ledgerCheck(t.db.pool, ws)).monthly_remaining;
const consistent = async (ws: string): Promise<boolean> => (await ledgerCheck(t.db.pool, ws)).consistent;
const reservations = async (ws: string): Promise<number> =>
  Number(
    (await t.db.pool.query('SELECT count(*) AS n FROM credit_reservations WHERE workspace_id = $1', [ws])).rows[0].n,
  );
/**
 * Waits for the workspace's reservations to be settled and its balance to be back at `balance` (a charge kept
 * while the request ran is refunded after the client has gone; a loaded machine takes longer than a moment), 15 s
 * at most: the assertions after it fail if it never is.
 */
async function settle(ws: string, balance: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if ((await reservations(ws)) === 0 && (await remaining(ws)) === balance) return;
  }
}

/** Writes raw bytes on a new connection; resolves with everything the server sent back once it closes. */
function raw(bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    let got = '';
    socket.on('data', (d) => (got += d.toString()));
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('an answer the client never gets', () => {
  it('is not charged when the request body is malformed chunked encoding (400 before any answer)', async () => {
    const { workspace, key } = await t.workspace('pro');
    for (let i = 0; i < 5; i++) {
      const answer = await raw(
        `GET ${DETAIL} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.key}\r\n` +
          'Transfer-Encoding: chunked\r\n\r\nZZZ\r\nnot a chunk\r\n',
      );
      assert.match(answer, /^HTTP\/1\.1 400 /);
    }
    await settle(workspace.id, 50_000);
    assert.equal(await remaining(workspace.id), 50_000);
    assert.equal(await reservations(workspace.id), 0);
    assert.ok(await consistent(workspace.id));
  });

  it('is not charged when the body turns out malformed while the credit is being kept', async () => {
    const { workspace, key } = await t.workspace('pro');
    // The keep's log row waits behind a lock; the malformed chunk arrives meanwhile; then the lock goes.
    const blocker: pg.PoolClient = await t.db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE request_logs IN EXCLUSIVE MODE');
    const { hostname, port } = new URL(base);
    const socket = net.connect(Number(port), hostname);
    let got = '';
    socket.on('data', (d) => (got += d.toString()));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(
      `GET ${DETAIL} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.key}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const waiting = async (): Promise<boolean> =>
      (await t.db.pool.query("SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'request_logs'::regclass"))
        .rowCount! > 0;
    for (let i = 0; i < 100 && !(await waiting()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(await waiting(), 'the keep waits for the lock');
    socket.write('ZZZ\r\nnot a chunk\r\n');
    await closed;
    assert.match(got, /^HTTP\/1\.1 400 /);
    await blocker.query('COMMIT');
    blocker.release();
    await settle(workspace.id, 50_000);
    assert.equal(await remaining(workspace.id), 50_000);
    assert.equal(await reservations(workspace.id), 0);
    assert.ok(await consistent(workspace.id));
  });

  it('is not charged when the client gives up while the read is slow, and its log row says 499', async () => {
    const { workspace, key } = await t.workspace('pro');
    // The entity's read waits behind a lock; the client gives up after 300 ms; then the lock goes.
    const blocker: pg.PoolClient = await t.db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE registry.entities IN ACCESS EXCLUSIVE MODE');
    const requests = Array.from({ length: 3 }, () =>
      fetch(`${base}/v1/entities/L22000000003`, {
        headers: { authorization: `Bearer ${key.key}` },
        signal: AbortSignal.timeout(300),
      }).catch((err: unknown) => err),
    );
    const outcomes = await Promise.all(requests);
    assert.ok(outcomes.every((o) => o instanceof Error));
    await blocker.query('COMMIT');
    blocker.release();
    await settle(workspace.id, 50_000);
    await t.app.requestLog.flush();
    const { rows } = await t.db.pool.query<{ status: number; credits: number }>(
      'SELECT status, credits FROM request_logs WHERE workspace_id = $1',
      [workspace.id],
    );
    // Each request the server saw is logged 499, free (on a loaded machine a client may give up before it is seen).
    assert.ok(rows.length > 0, 'the server saw the requests');
    assert.deepEqual(
      rows.filter((r) => r.status !== 499 || r.credits !== 0),
      [],
    );
    assert.equal(await remaining(workspace.id), 50_000);
    assert.equal(await reservations(workspace.id), 0);
    assert.ok(await consistent(workspace.id));
  });

  it('a charged answer has its log row and its usage the moment it is sent', async () => {
    const { workspace, key } = await t.workspace('pro');
    const res = await fetch(`${base}${DETAIL}`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.equal(res.status, 200);
    await res.text();
    // No wait: the row and the day's usage were committed before the answer left.
    const row = await findRequestLog(t.db.pool, res.headers.get('x-request-id')!);
    assert.equal(row?.credits, 1);
    assert.equal(row?.status, 200);
    const usage = await t.db.pool.query('SELECT rest FROM usage_days WHERE workspace_id = $1', [workspace.id]);
    assert.equal(Number(usage.rows[0].rest), 1);
    assert.equal(await remaining(workspace.id), 49_999);
    assert.equal(await reservations(workspace.id), 0);
  });
});

describe('idempotency keys', () => {
  it('answer again with the same status and body, free, marked Idempotent-Replayed', async () => {
    const { workspace, key } = await t.workspace('pro');
    const ask = (path: string, idempotencyKey: string) => t.get(path, key.key, { 'idempotency-key': idempotencyKey });
    const first = await ask(DETAIL, 'order-17');
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await ask(DETAIL, 'order-17');
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
    assert.equal(await remaining(workspace.id), 49_999);
    // A 404 is an answer: given again too, at no further cost.
    const missing = await ask('/v1/entities/NOSUCH1', 'order-18');
    const missingAgain = await ask('/v1/entities/NOSUCH1', 'order-18');
    assert.deepEqual([missing.statusCode, missingAgain.statusCode], [404, 404]);
    assert.equal(missingAgain.body, missing.body);
    assert.equal(await remaining(workspace.id), 49_998);
    await t.app.requestLog.flush();
    const replayLog = await findRequestLog(t.db.pool, String(again.headers['x-request-id']));
    assert.equal(replayLog?.credits, 0);
    assert.ok(await consistent(workspace.id));
  });

  it('the same key with other parameters is a 409 in the envelope, free; a bad key a 400 naming it', async () => {
    const { workspace, key } = await t.workspace('pro');
    assert.equal((await t.get('/v1/filings/recent?days=3', key.key, { 'idempotency-key': 'k1' })).statusCode, 200);
    const other = await t.get('/v1/filings/recent?days=4', key.key, { 'idempotency-key': 'k1' });
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().error.code, 'conflict');
    assert.match(other.json().error.message, /used with another request/);
    // The same request written otherwise (a default made explicit) is the same request.
    const same = await t.get('/v1/filings/recent?limit=25&days=3', key.key, { 'idempotency-key': 'k1' });
    assert.equal(same.headers['idempotent-replayed'], 'true');
    const bad = await t.get('/v1/filings/recent', key.key, { 'idempotency-key': 'x'.repeat(256) });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(Object.keys(bad.json().error.details), ['Idempotency-Key']);
    assert.equal(await remaining(workspace.id), 49_999);
  });

  it('a key whose request failed is free again: the retry runs and is charged once', async () => {
    const { workspace, key } = await t.workspace('pro');
    await t.db.pool.query('UPDATE workspaces SET monthly_remaining = 0 WHERE id = $1', [workspace.id]);
    await t.db.pool.query('UPDATE workspaces SET subscription_status = $2 WHERE id = $1', [workspace.id, 'past_due']);
    const refused = await t.get(DETAIL, key.key, { 'idempotency-key': 'retry-me' });
    assert.equal(refused.statusCode, 429);
    await t.db.pool.query('UPDATE workspaces SET monthly_remaining = 10, subscription_status = $2 WHERE id = $1', [
      workspace.id,
      'active',
    ]);
    const retried = await t.get(DETAIL, key.key, { 'idempotency-key': 'retry-me' });
    assert.equal(retried.statusCode, 200);
    assert.equal(retried.headers['idempotent-replayed'], undefined);
    const count = await t.db.pool.query(
      `SELECT count(*) AS n FROM credit_ledger WHERE workspace_id = $1 AND kind = 'consumption'`,
      [workspace.id],
    );
    assert.equal(Number(count.rows[0].n), 1);
  });
});

describe('idempotency keys over MCP', () => {
  const call = async (key: string, params: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
    });
    const body = (await res.json()) as any;
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body };
  };

  it("take a call's _meta key, or the request's header, and give the tool result again for free", async () => {
    const { workspace, key } = await t.workspace('pro');
    const params = { name: 'get_entity', arguments: { document_number: 'L20000000001' } };
    const first = await call(key.key, { ...params, _meta: { idempotency_key: 'agent-step-1' } });
    const again = await call(key.key, { ...params, _meta: { idempotency_key: 'agent-step-1' } });
    assert.equal(first.body.result.structuredContent.data.document_number, 'L20000000001');
    assert.deepEqual(again.body.result, first.body.result);
    assert.equal(again.replayed, 'true');
    const byHeader = await call(key.key, params, { 'idempotency-key': 'agent-step-2' });
    const byHeaderAgain = await call(key.key, params, { 'idempotency-key': 'agent-step-2' });
    assert.deepEqual(byHeaderAgain.body.result, byHeader.body.result);
    assert.equal(await remaining(workspace.id), 49_998);
    // The same key for another call: -32009 (conflict) with the REST code, free.
    const other = await call(key.key, {
      name: 'get_entity',
      arguments: { document_number: 'L22000000003' },
      _meta: { idempotency_key: 'agent-step-1' },
    });
    assert.equal(other.status, 200);
    assert.equal(other.body.error.code, -32009);
    assert.equal(other.body.error.data.code, 'conflict');
    assert.equal(await remaining(workspace.id), 49_998);
  });
});

/** A pool whose statements fail while `down()` says so, as a database that is not there. */
/** A pool whose statements fail while down() holds; `sent` counts those that reached the database. */
const flakyPool = (down: () => boolean, sent = { count: 0 }): pg.Pool =>
  ({
    query: (...args: Parameters<pg.Pool['query']>) => {
      if (down()) return Promise.reject(new Error('Connection terminated'));
      sent.count++;
      return t.db.pool.query(...args);
    },
  }) as unknown as pg.Pool;

/** A pool whose connections run `query`, as pg's pool lends them to the gate. */
const connecting = (query: pg.Pool['query'], connect = async () => {}): pg.Pool =>
  ({ connect: async () => (await connect(), { query, release: () => {} }) }) as unknown as pg.Pool;

/** Milliseconds until a Pro workspace holds no credit and has all 50,000 again (5 s at most). */
async function msUntilFreed(ws: string): Promise<number> {
  const start = Date.now();
  while (((await reservations(ws)) !== 0 || (await remaining(ws)) !== 50_000) && Date.now() - start < 5_000)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return Date.now() - start;
}

describe('refunds the database refused', () => {
  it('are written within a second or two of it answering again', async () => {
    const { workspace, key } = await t.workspace('pro');
    const r = await t.reserve(key.key, 'req_refund_later');
    let down = true;
    const flaky = flakyPool(() => down);
    const errors: string[] = [];
    const settlement = new Settlement(flaky, t.clock, (_err, _fields, message) => errors.push(message));
    await settlement.release('req_refund_later', [r.reservation!], 500);
    assert.equal(errors.length, 1);
    assert.equal(await remaining(workspace.id), 49_999); // still held
    down = false;
    const ms = await msUntilFreed(workspace.id);
    assert.ok(ms < 2_000, `freed after ${ms} ms`);
    await settlement.close();
  });

  it("a long outage's thousands of doubtful checks do not hold a real refund behind them", async () => {
    const { workspace, key } = await t.workspace('pro');
    const r = await t.reserve(key.key, 'req_refund_behind');
    let down = true;
    const sent = { count: 0 };
    const settlement = new Settlement(
      flakyPool(() => down, sent),
      t.clock,
      () => {},
    );
    settlement.releaseUnseen(Array.from({ length: 5_000 }, (_, i) => `req_doubt_${i}`));
    for (let i = 0; i < 100; i++) settlement.releaseUnseen([`req_doubt_late_${i}`]);
    await settlement.release('req_refund_behind', [r.reservation!], 500);
    down = false;
    const ms = await msUntilFreed(workspace.id);
    assert.ok(ms < 2_000, `freed after ${ms} ms`);
    await settlement.close();
    // One statement for the reservation, one for every doubtful check: none is left for close() to write.
    assert.equal(sent.count, 2);
  });
});

describe('a gate check whose answer was lost', () => {
  it('frees the credit it committed unseen once the database answers, long before the sweeper would', async () => {
    const { workspace, key } = await t.workspace('pro');
    let down = false;
    // The database commits the check, then dies before its answer arrives; it stays down a while.
    const lossy = connecting((async (...args: Parameters<pg.Pool['query']>) => {
      await t.db.pool.query(...args);
      down = true;
      throw new Error('Connection terminated unexpectedly');
    }) as pg.Pool['query']);
    const flaky = flakyPool(() => down);
    const settlement = new Settlement(flaky, t.clock, () => {});
    const gate = new Gate(lossy, PEPPER, t.clock, (ids) => settlement.releaseUnseen(ids));
    const ask = { credential: { key: key.key }, surface: 'rest', leadFeed: false, csv: false } as const;
    await assert.rejects(gate.check({ ...ask, reserve: true, requestId: 'req_lost_answer' }), /terminated/);
    // A check that reserved nothing leaves nothing in doubt.
    await assert.rejects(gate.check({ ...ask, reserve: false, requestId: 'req_lost_free' }), /terminated/);
    assert.equal(await reservations(workspace.id), 1);
    assert.equal(await remaining(workspace.id), 49_999);
    down = false;
    const ms = await msUntilFreed(workspace.id);
    assert.ok(ms < 2_000, `freed after ${ms} ms`);
    assert.ok(await consistent(workspace.id));
    await settlement.close();
  });

  it('a check that found no connection sent nothing, so nothing is in doubt', async () => {
    const { key } = await t.workspace('pro');
    const doubted: string[] = [];
    const refused = connecting(t.db.pool.query.bind(t.db.pool) as pg.Pool['query'], () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
    );
    const gate = new Gate(refused, PEPPER, t.clock, (ids) => doubted.push(...ids));
    const ask = { credential: { key: key.key }, surface: 'rest', leadFeed: false, csv: false } as const;
    await assert.rejects(gate.check({ ...ask, reserve: true, requestId: 'req_no_connection' }), /ECONNREFUSED/);
    assert.deepEqual(doubted, []);
  });
});
