// Accounts and credits through real requests: every row of the spec's "Account credit states",
// exact spending under concurrency, settlement of failures, and identical 401s.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { addPack } from '../src/accounts/packs.js';
import {
  adjustCredits,
  createKey,
  revokeKey,
  setPerMinute,
  setPlan,
  setStatus,
  setSuspended,
} from '../src/accounts/workspaces.js';
import { Gate, sweepReservations } from '../src/accounts/gate.js';
import { findRequestLog } from '../src/accounts/request-log.js';
import { cycleJob } from '../src/accounts/jobs.js';
import { InstanceHolder } from '../src/db/instance.js';
import { createPool, inTransaction } from '../src/db/pool.js';
import { runJob } from '../src/jobs/job.js';
import { defineOperation, type Operation } from '../src/api/operation.js';
import { singleEnvelope } from '../src/api/schemas.js';
import { PEPPER, testApp, type TestApp } from './support/app.js';

let t: TestApp;
const METERED = '/v1/filings/recent';
const DAY = 86_400_000;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
});
after(() => t.close());

/** A charged answer's log row, for keeping its credit by hand. */
const keptLog = (requestId: string) => ({
  request_id: requestId,
  at: t.clock.now(),
  workspace_id: null,
  key_id: null,
  user_id: null,
  test_key: false,
  surface: 'rest' as const,
  method: 'GET',
  route: '/v1/entities/:document_number',
  status: 200,
  duration_ms: 1,
  client_ip: null,
});

const ledgerKinds = async (ws: string): Promise<string[]> =>
  (
    await t.db.pool.query<{ kind: string }>('SELECT kind FROM credit_ledger WHERE workspace_id = $1 ORDER BY id', [ws])
  ).rows.map((r) => r.kind);

async function consistent(ws: string) {
  const check = await ledgerCheck(t.db.pool, ws);
  assert.ok(check.consistent, `counters disagree with the ledger: ${JSON.stringify(check)}`);
  return check;
}

describe('credit states', () => {
  it('trial: 500 at signup, capped once at min(remaining, 100) after day 7, then 402 at zero', async () => {
    const { workspace, key } = await t.workspace('free_trial');
    assert.equal((await consistent(workspace.id)).monthly_remaining, 500);
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.equal((await consistent(workspace.id)).monthly_remaining, 499);

    t.clock.advance(7 * DAY); // the first request after day 7
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.equal((await consistent(workspace.id)).monthly_remaining, 99);
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.equal((await consistent(workspace.id)).monthly_remaining, 98);
    assert.equal((await ledgerKinds(workspace.id)).filter((k) => k === 'free_trial_expired_cap').length, 1);

    await adjustCredits(t.db.pool, workspace.id, -98, 'test', t.clock);
    const refused = await t.get(METERED, key.key);
    assert.equal(refused.statusCode, 402);
    assert.equal(refused.json().error.code, 'payment_required');
    assert.match(refused.json().error.message, /upgrade/i);
    assert.equal((await consistent(workspace.id)).balance, 0);
    t.clock.advance(-7 * DAY);
  });

  it('paid plan: serves past the monthly grant as overage; past_due: 429, Retry-After to the next cycle', async () => {
    const { workspace, key } = await t.workspace('developer');
    await adjustCredits(t.db.pool, workspace.id, -9_999, 'test', t.clock);
    for (let i = 0; i < 3; i++) assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    const check = await consistent(workspace.id);
    assert.deepEqual([check.monthly_remaining, check.overage_unbilled, check.balance], [0, 2, -2]);

    await setStatus(t.db.pool, workspace.id, 'past_due');
    const refused = await t.get(METERED, key.key);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().error.code, 'rate_limited');
    const toNextCycle = (Date.parse('2026-04-01T00:00:00Z') - t.clock.now().getTime()) / 1000;
    assert.equal(Number(refused.headers['retry-after']), Math.ceil(toNextCycle));
    assert.equal((await consistent(workspace.id)).overage_unbilled, 2);
    await setStatus(t.db.pool, workspace.id, 'active');
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
  });

  it('plans without overage answer 429 when the month is used up (enterprise shows as unlimited)', async () => {
    const { workspace, key } = await t.workspace('mcp_starter');
    await createKey(t.db.pool, workspace.id, 'live', PEPPER, t.clock);
    const ent = await t.workspace('enterprise');
    const usage = await t.get('/v1/account/usage', ent.key.key);
    assert.deepEqual(
      { ...usage.json().data, reset_date: undefined },
      { events_count: 0, monthly_quota: 2_000_000_000, percent_used: 0, plan: 'enterprise', reset_date: undefined },
    );
    // MCP Starter has no REST at all.
    const rest = await t.get(METERED, key.key);
    assert.equal(rest.statusCode, 403);
    assert.equal(rest.json().error.code, 'rest_disabled');
  });

  it('a new cycle drops unused monthly credits and grants the plan anew (no rollover); job is idempotent', async () => {
    const { workspace, key } = await t.workspace('developer');
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    const job = (asOf: Date) =>
      runJob(cycleJob, { pool: t.db.pool, config: t.config, clock: t.clock, asOf, log: () => {} }, 'manual');
    await job(new Date('2026-04-01T00:00:00Z'));
    await job(new Date('2026-04-01T00:00:00Z'));
    const check = await consistent(workspace.id);
    assert.equal(check.monthly_remaining, 10_000);
    const kinds = await ledgerKinds(workspace.id);
    assert.equal(kinds.filter((k) => k === 'monthly_expiry').length, 2); // monthly and test pools, once each
    assert.deepEqual(
      (
        await t.db.pool.query(
          `SELECT amount FROM credit_ledger WHERE workspace_id = $1 AND kind = 'monthly_expiry' AND pool = 'monthly'`,
          [workspace.id],
        )
      ).rows,
      [{ amount: -9_999 }],
    );
  });

  it('a missed cycle is worked out on the next request', async () => {
    const { workspace, key } = await t.workspace('pro');
    await adjustCredits(t.db.pool, workspace.id, -49_000, 'test', t.clock);
    t.clock.set('2026-05-02T08:00:00Z');
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.equal((await consistent(workspace.id)).monthly_remaining, 49_999);
    const usage = (await t.get('/v1/account/usage', key.key)).json().data;
    assert.deepEqual(usage, {
      events_count: 1,
      monthly_quota: 50_000,
      percent_used: 0,
      reset_date: '2026-06-01T00:00:00Z',
      plan: 'pro',
    });
    t.clock.set('2026-03-10T12:00:00Z');
  });

  it('spends packs after the monthly credits, earliest expiry first, and never an expired pack', async () => {
    const { workspace, key } = await t.workspace('mcp_starter');
    await setPlan(t.db.pool, workspace.id, 'developer', t.clock);
    await adjustCredits(t.db.pool, workspace.id, -9_999, 'test', t.clock);
    const early = await inTransaction(t.db.pool, (c) =>
      addPack(c, workspace.id, 'starter', new Date('2025-03-20T10:00:00Z'), 'chk_early'),
    );
    const late = await inTransaction(t.db.pool, (c) =>
      addPack(c, workspace.id, 'starter', new Date('2026-03-01T10:00:00Z'), 'chk_late'),
    );
    assert.ok(early && late);
    for (let i = 0; i < 3; i++) assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    const remaining = async () =>
      (
        await t.db.pool.query('SELECT checkout_id, remaining FROM credit_packs WHERE workspace_id = $1 ORDER BY id', [
          workspace.id,
        ])
      ).rows;
    assert.deepEqual(await remaining(), [
      { checkout_id: 'chk_early', remaining: 998 },
      { checkout_id: 'chk_late', remaining: 1000 },
    ]);
    // The early pack expires 2026-03-20T00:00Z: from then on the late one is spent, and the expiry is in the ledger.
    t.clock.set('2026-03-20T00:00:00Z');
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    assert.deepEqual(await remaining(), [
      { checkout_id: 'chk_early', remaining: 0 },
      { checkout_id: 'chk_late', remaining: 999 },
    ]);
    assert.ok((await ledgerKinds(workspace.id)).includes('pack_expiry'));
    await consistent(workspace.id);
    t.clock.set('2026-03-10T12:00:00Z');
  });

  it('test keys spend their own pool, never live credits, and get 429 when it is used up', async () => {
    const { workspace, key } = await t.workspace('developer');
    const test = await createKey(t.db.pool, workspace.id, 'test', PEPPER, t.clock);
    assert.match(test.key, /^svc_test_[0-9A-Za-z]{32}$/);
    assert.equal((await t.get(METERED, test.key)).statusCode, 200);
    let check = await consistent(workspace.id);
    assert.deepEqual([check.monthly_remaining, check.test_remaining], [10_000, 999]);
    assert.equal((await t.get('/v1/account/usage', test.key)).json().data.monthly_quota, 1000);
    assert.equal((await t.get('/v1/account/usage', key.key)).json().data.events_count, 0);
    await t.db.pool.query('UPDATE workspaces SET test_remaining = 0 WHERE id = $1', [workspace.id]);
    await t.db.pool.query(
      `INSERT INTO credit_ledger (workspace_id, at, kind, pool, amount)
       VALUES ($1, $2, 'admin_adjustment', 'test', -999)`,
      [workspace.id, t.clock.now()],
    );
    const refused = await t.get(METERED, test.key);
    assert.equal(refused.statusCode, 429);
    check = await consistent(workspace.id);
    assert.equal(check.overage_unbilled, 0);
  });

  it('a revoked key fails on its very next request; a suspended workspace fails for every key', async () => {
    const { workspace, key } = await t.workspace('pro');
    const second = await createKey(t.db.pool, workspace.id, 'live', PEPPER, t.clock);
    assert.equal((await t.get(METERED, key.key)).statusCode, 200);
    await revokeKey(t.db.pool, key.id, t.clock);
    assert.equal((await t.get(METERED, key.key)).statusCode, 401);
    assert.equal((await t.get(METERED, second.key)).statusCode, 200);
    await setSuspended(t.db.pool, workspace.id, true);
    assert.equal((await t.get(METERED, second.key)).statusCode, 401);
    await setSuspended(t.db.pool, workspace.id, false);
    assert.equal((await t.get(METERED, second.key)).statusCode, 200);
  });
});

describe('metering', () => {
  it('serves exactly min(N, K) of N concurrent requests on a trial holding K credits', async () => {
    const { workspace, key } = await t.workspace('free_trial');
    await adjustCredits(t.db.pool, workspace.id, -480, 'test: 20 left', t.clock);
    await setPerMinute(t.db.pool, workspace.id, 100); // the per-minute limit is not what this measures
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.get(METERED, key.key)));
    const codes = answers.map((a) => a.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 20);
    assert.equal(codes.filter((c) => c === 402).length, 30);
    const check = await consistent(workspace.id);
    assert.equal(check.balance, 0);
    assert.equal((await t.get('/v1/account/usage', key.key)).json().data.events_count, 20);
  });

  it('checks requests of one key arriving together in one batch, each answered as if it had come alone', async () => {
    const { workspace, key } = await t.workspace('free_trial');
    await adjustCredits(t.db.pool, workspace.id, -498, 'test: 2 left', t.clock);
    const ask = (reserve: boolean, leadFeed = false, surface: 'rest' | 'mcp' = 'rest') =>
      t.app.gate.check({
        credential: { key: key.key },
        surface,
        reserve,
        leadFeed,
        csv: false,
        requestId: `req_batch_${reserve}_${leadFeed}_${surface}`,
      });
    // The first goes alone; the other five wait for it and go together, in this order.
    const answers = await Promise.all([
      ask(true),
      ask(false),
      ask(true, true),
      ask(true),
      ask(true, false, 'mcp'),
      ask(true),
    ]);
    assert.deepEqual(
      answers.map((a) => [a.outcome, a.reservation !== null]),
      [
        ['ok', true],
        ['ok', false],
        ['forbidden', false],
        ['ok', true],
        ['mcp_disabled', false],
        ['payment_required', false],
      ],
    );
    assert.equal(new Set(answers.map((a) => a.reservation).filter((r) => r !== null)).size, 2);
    // Refunds touch only the request's own entries: each is named by its request id.
    const { rows: own } = await t.db.pool.query<{ id: number; request_id: string }>(
      'SELECT id, request_id FROM credit_ledger WHERE id = ANY($1)',
      [answers.map((a) => a.reservation).filter((r) => r !== null)],
    );
    for (const r of own) await t.app.settlement.release(r.request_id, [Number(r.id)], 500);
    assert.equal((await consistent(workspace.id)).balance, 2);
  });

  it('takes a batch covered by monthly credits at once, one ledger entry and reservation per request', async () => {
    const { workspace, key } = await t.workspace('pro');
    const ask = (i: number) =>
      t.app.gate.check({
        credential: { key: key.key },
        surface: i % 2 ? 'mcp' : 'rest',
        reserve: true,
        leadFeed: false,
        csv: false,
        requestId: `req_many_${i}`,
      });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i)));
    assert.deepEqual(new Set(answers.map((a) => a.outcome)), new Set(['ok']));
    assert.equal(new Set(answers.map((a) => a.reservation)).size, 12);
    assert.deepEqual(
      answers.map((a) => a.caller?.workspaceId),
      Array(12).fill(workspace.id),
    );
    const { rows } = await t.db.pool.query<{ request_id: string; pool: string; reserved: boolean }>(
      `SELECT l.request_id, l.pool, r.ledger_id IS NOT NULL AS reserved
       FROM credit_ledger l LEFT JOIN credit_reservations r ON r.ledger_id = l.id
       WHERE l.workspace_id = $1 AND l.kind = 'consumption' ORDER BY l.id`,
      [workspace.id],
    );
    assert.deepEqual(
      rows.map((r) => r.request_id),
      answers.map((_, i) => `req_many_${i}`),
    );
    assert.ok(rows.every((r) => r.pool === 'monthly' && r.reserved));
    const check = await consistent(workspace.id);
    assert.equal(check.monthly_remaining, 50_000 - 12);
    for (const [i, a] of answers.slice(0, 3).entries())
      await t.app.settlement.release(`req_many_${i}`, [a.reservation!], 500);
    const kept = await Promise.all(
      answers.slice(3).map((a, i) =>
        t.app.settlement.keep({
          log: { ...keptLog(`req_many_${i + 3}`), workspace_id: workspace.id },
          charges: [{ ledgerId: a.reservation!, idempotency: null }],
        }),
      ),
    );
    assert.deepEqual(kept, Array(9).fill(true));
    assert.equal((await consistent(workspace.id)).monthly_remaining, 50_000 - 9);
  });

  it("turns off the WAL flush wait in the gate's transaction only: the connection's next ones wait again", async () => {
    const { key } = await t.workspace('pro');
    // One connection: the next statement runs where the gate's did.
    const pool = createPool(t.db.pool.options.connectionString!, 1);
    try {
      const r = await new Gate(pool, PEPPER, t.clock, () => {}).check({
        credential: { key: key.key },
        surface: 'rest',
        reserve: true,
        leadFeed: false,
        csv: false,
        requestId: 'req_async_commit',
      });
      assert.equal(r.outcome, 'ok');
      assert.equal(
        (await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit,
        'on',
      );
      await t.app.settlement.release('req_async_commit', [r.reservation!], 500);
    } finally {
      await pool.end();
    }
  });

  it('a 404 costs one credit; 400, 401 and 403 cost nothing', async () => {
    const { workspace, key } = await t.workspace('pro');
    const before = (await consistent(workspace.id)).monthly_remaining;
    assert.equal((await t.get('/v1/entities/NOSUCH1', key.key)).statusCode, 404);
    assert.equal((await t.get('/v1/filings/recent?days=91', key.key)).statusCode, 400);
    assert.equal((await t.get('/v1/leads/new-businesses', key.key)).statusCode, 403);
    assert.equal((await consistent(workspace.id)).monthly_remaining, before - 1);
  });

  it('a 5xx costs nothing: the reserved credit is refunded with a ledger entry', async () => {
    const { workspace, key } = await t.workspace('pro');
    const failing = defineOperation({
      name: 'failing',
      tag: 'Account',
      tool: null,
      path: '/failing',
      title: 'fails',
      description: 'fails',
      params: z.strictObject({}),
      kind: 'single',
      result: z.object({}),
      response: singleEnvelope(z.object({})),
      metered: true,
      errors: [],
      async handle() {
        throw new Error('boom');
      },
    }) as unknown as Operation;
    const outcome = await t.app.pipeline.invoke(failing, {
      surface: 'rest',
      headers: { authorization: `Bearer ${key.key}` },
      args: {},
      csv: false,
      requestId: 'req_test5xx000000000000000',
      clientIp: '127.0.0.1',
    });
    assert.equal(outcome.status, 500);
    assert.deepEqual(outcome.body, {
      error: {
        code: 'internal_error',
        message: 'Internal server error. Retry with backoff.',
        request_id: 'req_test5xx000000000000000',
      },
    });
    assert.deepEqual(outcome.charges, []);
    const check = await consistent(workspace.id);
    assert.equal(check.monthly_remaining, 50_000);
    assert.deepEqual((await ledgerKinds(workspace.id)).slice(-2), ['consumption', 'refund']);
  });

  it('a credit reserved by a request that never finished is released by the sweeper, not leaked', async () => {
    const { workspace, key } = await t.workspace('pro');
    const r = await t.reserve(key.key, 'req_crash');
    assert.equal(r.outcome, 'ok');
    assert.equal((await consistent(workspace.id)).monthly_remaining, 49_999);
    assert.equal(await sweepReservations(t.db.pool, t.clock.now()), 0); // too young
    assert.equal(await sweepReservations(t.db.pool, new Date(t.clock.now().getTime() + 6 * 60_000)), 1);
    assert.equal((await consistent(workspace.id)).monthly_remaining, 50_000);
    // A late keep finds nothing to keep: its answer must not be sent, and nothing changes.
    const log = { ...keptLog('req_crash'), workspace_id: workspace.id };
    assert.equal(
      await t.app.settlement.keep({ log, charges: [{ ledgerId: r.reservation!, idempotency: null }] }),
      false,
    );
    assert.equal((await consistent(workspace.id)).monthly_remaining, 50_000);
    assert.equal(await findRequestLog(t.db.pool, 'req_crash'), null);
  });

  it("the reservations of an instance that died are released at once, a live instance's kept", async () => {
    const { workspace, key } = await t.workspace('pro');
    const instances = [4_100_001, 4_100_002].map((n) => ({
      pool: createPool(t.db.url, 1, { instance: n }),
      holder: new InstanceHolder(t.db.url, n),
    }));
    try {
      const reserved: number[] = [];
      for (const { pool, holder } of instances) {
        await holder.start();
        const gate = new Gate(pool, PEPPER, t.clock, () => {});
        const r = await gate.check({
          credential: { key: key.key },
          surface: 'rest',
          reserve: true,
          leadFeed: false,
          csv: false,
          requestId: 'req_x',
        });
        assert.equal(r.outcome, 'ok');
        reserved.push(r.reservation!);
      }
      assert.equal((await consistent(workspace.id)).monthly_remaining, 49_998);
      assert.equal(await sweepReservations(t.db.pool, t.clock.now()), 0); // both alive, both young
      // A database restart ends every session; an instance whose lock holder is not back yet is still alive
      // through the connection its requests use, which takes the lock again before any statement.
      await instances[1]!.holder.stop();
      await t.db.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks
         WHERE locktype = 'advisory' AND classid = 7310010 AND objid IN (4100001, 4100002)`,
      );
      // Their next requests, on new connections (a pooled client whose end is not yet noticed fails once).
      for (const { pool } of instances)
        for (let i = 0; i < 20; i++) {
          const ok = await pool.query('SELECT 1').then(
            () => true,
            () => false,
          );
          if (ok) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      assert.equal(await sweepReservations(t.db.pool, t.clock.now()), 0);
      assert.equal(await sweepReservations(t.db.pool, new Date(t.clock.now().getTime() + 3_000)), 0);
      // The first instance's process is gone, and its sessions with it.
      await instances[0]!.holder.stop();
      await instances[0]!.pool.end();
      instances.shift();
      // The server ends the closed sessions a moment after they close (seconds on a loaded machine): once the lock is
      // gone, a sweep at `now` records the holder missing and releases nothing (within the grace), and a sweep past
      // the grace releases its reservation.
      const alive = async (): Promise<boolean> =>
        (await t.db.pool.query('SELECT reservation_holder_alive(4100001) AS a')).rows[0].a as boolean;
      for (let i = 0; i < 600 && (await alive()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await alive(), false, 'the closed sessions still hold the lock after 30 s');
      assert.equal(await sweepReservations(t.db.pool, t.clock.now()), 0);
      assert.equal(await sweepReservations(t.db.pool, new Date(t.clock.now().getTime() + 2_000)), 1);
      assert.equal((await consistent(workspace.id)).monthly_remaining, 49_999);
      const left = await t.db.pool.query('SELECT ledger_id FROM credit_reservations WHERE workspace_id = $1', [
        workspace.id,
      ]);
      assert.deepEqual(
        left.rows.map((r) => Number(r.ledger_id)),
        [reserved[1]],
      );
    } finally {
      for (const { pool, holder } of instances) {
        await holder.stop();
        await pool.end();
      }
    }
  });
});

describe('authentication', () => {
  it('answers every failure with the same 401 body and WWW-Authenticate: Bearer', async () => {
    const { workspace, key } = await t.workspace('pro');
    const revoked = await createKey(t.db.pool, workspace.id, 'live', PEPPER, t.clock);
    await revokeKey(t.db.pool, revoked.id, t.clock);
    const suspended = await t.workspace('pro');
    await setSuspended(t.db.pool, suspended.workspace.id, true);
    const unknown = `svc_live_${'A'.repeat(32)}`;
    const cases: Array<[string, Record<string, string>, string?]> = [
      ['missing', {}],
      ['malformed', { authorization: 'Bearer svc_live_short' }],
      ['unknown', { authorization: `Bearer ${unknown}` }],
      ['revoked', { authorization: `Bearer ${revoked.key}` }],
      ['suspended', { 'x-api-key': suspended.key.key }],
      ['another scheme', { authorization: `Basic ${key.key}` }],
      ['two spaces', { authorization: `Bearer  ${key.key}` }],
      ['both headers differing', { authorization: `Bearer ${key.key}`, 'x-api-key': unknown }],
      ['key in the query only', {}, `?api_key=${key.key}`],
    ];
    const bodies = new Set<string>();
    for (const [what, headers, query] of cases) {
      const r = await t.app.http.inject({ method: 'GET', url: `${METERED}${query ?? ''}`, headers });
      assert.equal(r.statusCode, 401, what);
      assert.equal(r.headers['www-authenticate'], 'Bearer', what);
      const body = r.json();
      assert.match(body.error.request_id, /^req_[0-9A-Za-z]{20,}$/);
      assert.equal(r.headers['x-request-id'], body.error.request_id);
      bodies.add(JSON.stringify({ ...body, error: { ...body.error, request_id: '' } }));
    }
    assert.deepEqual(
      [...bodies],
      [JSON.stringify({ error: { code: 'unauthorized', message: 'Invalid or missing API key.', request_id: '' } })],
    );
    // Accepted forms: the scheme in any case, X-API-Key, both headers equal; an api_key in the query is ignored.
    for (const headers of [
      { authorization: `bearer ${key.key}` },
      { 'x-api-key': key.key },
      { authorization: `BEARER ${key.key}`, 'x-api-key': key.key },
    ]) {
      assert.equal((await t.app.http.inject({ method: 'GET', url: `${METERED}?api_key=x`, headers })).statusCode, 200);
    }
  });

  it('keeps only a keyed hash of each key and logs requests without it', async () => {
    const { key } = await t.workspace('pro');
    const r = await t.get(`${METERED}?api_key=${key.key}`, key.key);
    await t.app.requestLog.flush();
    const stored =
      JSON.stringify((await t.db.pool.query('SELECT * FROM api_keys')).rows) +
      JSON.stringify((await t.db.pool.query('SELECT * FROM request_logs')).rows);
    assert.ok(!stored.includes(key.key.slice(9)), 'a raw key is stored somewhere');
    const log = (
      await t.db.pool.query('SELECT route, status, credits, key_id FROM request_logs WHERE request_id = $1', [
        r.headers['x-request-id'],
      ])
    ).rows[0];
    assert.deepEqual(log, { route: '/v1/filings/recent', status: 200, credits: 1, key_id: key.id });
  });
});
