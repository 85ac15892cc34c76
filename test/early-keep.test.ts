// The common answer's credit is kept while its handler runs (docs/contract.md, "What a client can rely on"): the
// charge, its log row and its usage commit beside the handler's read; the row's status and time come with the request
// log's batch once the answer is known; an answer that then fails is refunded and logged once with its own status.
// Answers under an Idempotency-Key are kept as they are sent, with their copy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { loadFixture } from './support/fixture.js';
import { testApp, type TestApp } from './support/app.js';

let t: TestApp;
let base: string;

/** A request's read waits behind a table lock this long before the lock goes. */
const HELD_MS = 300;

before(async () => {
  t = await testApp();
  await loadFixture(t.db.pool);
  base = await t.app.http.listen({ host: '127.0.0.1', port: 0 });
});
after(() => t.close());

const DETAIL = '/v1/entities/L20000000001';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function counts(ws: string): Promise<{ reservations: number; logged: number; charged: number }> {
  const { rows } = await t.db.pool.query<{ reservations: number; logged: number; charged: number }>(
    `SELECT (SELECT count(*)::int FROM credit_reservations WHERE workspace_id = $1) AS reservations,
            (SELECT count(*)::int FROM request_logs WHERE workspace_id = $1 AND credits > 0) AS logged,
            (SELECT count(*)::int FROM credit_ledger WHERE workspace_id = $1 AND amount = -1) AS charged`,
    [ws],
  );
  return rows[0]!;
}

/** Polls `read` until `done` holds of it, 5 s at most; answers the last reading (the test's assertions judge it). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 100 && !done(v); i++) {
    await sleep(50);
    v = await read();
  }
  return v;
}

/** Runs `during` while registry.entities is locked (the entity read waits), then lets the read go. */
async function withEntitiesLocked<T>(during: () => Promise<T>): Promise<T> {
  const blocker: pg.PoolClient = await t.db.pool.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE registry.entities IN ACCESS EXCLUSIVE MODE');
    return await during();
  } finally {
    await blocker.query('COMMIT');
    blocker.release();
  }
}

const logOf = async (requestId: string) =>
  (
    await t.db.pool.query<{ status: number; credits: number; duration_ms: number }>(
      'SELECT status, credits, duration_ms FROM request_logs WHERE request_id = $1',
      [requestId],
    )
  ).rows[0];

describe('a credit kept while its request is handled', () => {
  it('is committed with its log row while the handler runs; the row then gets the answer status and time', async () => {
    const { workspace, key } = await t.workspace('pro');
    let answer!: Promise<Response>;
    const during = await withEntitiesLocked(async () => {
      answer = fetch(`${base}${DETAIL}`, { headers: { authorization: `Bearer ${key.key}` } });
      const seen = await until(
        () => counts(workspace.id),
        (c) => c.logged === 1,
      );
      await sleep(HELD_MS);
      return seen;
    });
    // While the read still waited, the charge was kept: no reservation left, its log row written.
    assert.deepEqual(during, { reservations: 0, logged: 1, charged: 1 });
    const res = await answer;
    assert.equal(res.status, 200);
    await res.text();
    const row = await until(
      () => logOf(res.headers.get('x-request-id')!),
      (r) => (r?.duration_ms ?? 0) >= HELD_MS,
    );
    assert.equal(row?.status, 200);
    assert.equal(row?.credits, 1);
    assert.ok(row!.duration_ms >= HELD_MS, `the answer's own time (${row?.duration_ms} ms) is written after it`);
    // The final status and time came with the request log's batch; the request counted in the usage once.
    await t.app.requestLog.flush();
    const usage = await t.db.pool.query('SELECT rest, requests, credits FROM usage_days WHERE workspace_id = $1', [
      workspace.id,
    ]);
    assert.deepEqual(
      usage.rows.map((u) => [Number(u.rest), Number(u.requests), Number(u.credits)]),
      [[1, 1, 1]],
    );
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining, 49_999);
  });

  it('a 404 costs its credit and is logged 404', async () => {
    const { workspace, key } = await t.workspace('pro');
    const res = await t.get('/v1/entities/X99999999999', key.key);
    assert.equal(res.statusCode, 404);
    const row = await until(
      () => logOf(String(res.headers['x-request-id'])),
      (r) => r?.status === 404,
    );
    assert.deepEqual({ status: row?.status, credits: row?.credits }, { status: 404, credits: 1 });
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining, 49_999);
  });

  it('a request failing after its keep is refunded and logged once, with its own status and no credits', async () => {
    const { workspace, key } = await t.workspace('pro');
    // The read waits behind the lock and is cancelled once its credit is kept: the request fails after its keep.
    const res = await withEntitiesLocked(async () => {
      const answer = fetch(`${base}${DETAIL}`, { headers: { authorization: `Bearer ${key.key}` } });
      await until(
        () => counts(workspace.id),
        (c) => c.logged === 1,
      );
      await t.db.pool.query(
        `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
         WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()`,
      );
      const r = await answer;
      await r.text();
      return r;
    });
    assert.equal(res.status, 500);
    await t.app.requestLog.flush();
    const row = await logOf(res.headers.get('x-request-id')!);
    assert.deepEqual({ status: row?.status, credits: row?.credits }, { status: 500, credits: 0 });
    const check = await ledgerCheck(t.db.pool, workspace.id);
    assert.equal(check.monthly_remaining, 50_000);
    assert.ok(check.consistent);
    const { rows } = await t.db.pool.query<{ requests: number; rest: number; credits: number }>(
      'SELECT requests, rest, credits FROM usage_days WHERE workspace_id = $1',
      [workspace.id],
    );
    // One request, counted once (its row was written by the keep; the response's end adds none), nothing kept.
    assert.deepEqual(rows, [{ requests: 1, rest: 0, credits: 0 }]);
  });

  it('under an Idempotency-Key the credit stays reserved until the answer is kept with its copy', async () => {
    const { workspace, key } = await t.workspace('pro');
    let answer!: Promise<Response>;
    const during = await withEntitiesLocked(async () => {
      answer = fetch(`${base}${DETAIL}`, {
        headers: { authorization: `Bearer ${key.key}`, 'idempotency-key': 'early-1' },
      });
      const seen = await until(
        () => counts(workspace.id),
        (c) => c.reservations === 1,
      );
      await sleep(HELD_MS);
      return { ...seen, again: await counts(workspace.id) };
    });
    assert.deepEqual(during.again, { reservations: 1, logged: 0, charged: 1 });
    const res = await answer;
    assert.equal(res.status, 200);
    await res.text();
    assert.deepEqual(await counts(workspace.id), { reservations: 0, logged: 1, charged: 1 });
  });
});
