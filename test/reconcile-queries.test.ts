// Reconciliation query batches (docs/reconciliation.md, "Queries") as OpenRefine sends them: a form POST or a GET
// with `queries`, answered as the spec's result batch (validated with its own schemas), matched by the matcher of
// POST /v1/entities/match; one credit per query, charged once with the answer, nothing for a batch refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { loadFixture } from './support/fixture.js';
import { assertSpecValid, newCredential } from './support/reconciliation.js';
import { testApp, type TestApp } from './support/app.js';

let t: TestApp;
let workspaceId: string;
let token: string;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  await loadFixture(t.db.pool);
  const w = await t.workspace('enterprise');
  workspaceId = w.workspace.id;
  await setPerMinute(t.db.pool, workspaceId, 100_000);
  token = await newCredential(t.app.http, w.key.key);
});
after(() => t.close());

const spent = async (): Promise<number> =>
  (
    await t.db.pool.query<{ n: number }>(
      `SELECT coalesce(-sum(amount), 0)::int AS n FROM credit_ledger
       WHERE workspace_id = $1 AND kind IN ('consumption', 'overage', 'refund')`,
      [workspaceId],
    )
  ).rows[0]!.n;

async function reconcile(queries: unknown, method: 'GET' | 'POST' = 'POST') {
  const text = typeof queries === 'string' ? queries : JSON.stringify(queries);
  const res =
    method === 'POST'
      ? await t.app.http.inject({
          method,
          url: `/v1/reconcile/${token}`,
          payload: new URLSearchParams({ queries: text }).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      : await t.app.http.inject({ method, url: `/v1/reconcile/${token}?queries=${encodeURIComponent(text)}` });
  await t.app.requestLog.flush();
  return res;
}

const BATCH = {
  q0: { query: 'Acme Holdings Inc', type: 'DOMP', limit: 3, properties: [{ pid: 'city', v: 'Tampa' }] },
  q1: {
    query: "O'Brien and Sons",
    properties: [
      { pid: 'officer', v: ['John Smith'] },
      { pid: 'zip', v: 33101 },
    ],
  },
  q2: { query: 'Twin Peaks', type: ['FLAL'], properties: [{ pid: 'document_number', v: 'l23000000010' }] },
  q3: { query: 'Nothing Like Any Name Here' },
};

describe('a query batch', () => {
  it('answers a valid result batch, best first, a credit per query kept with the answer', async () => {
    assertSpecValid('reconciliation-query-batch', BATCH);
    const before = await spent();
    const res = await reconcile(BATCH);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const body = res.json();
    assertSpecValid('reconciliation-result-batch', body);
    assert.deepEqual(Object.keys(body), ['q0', 'q1', 'q2', 'q3']);
    const [top] = body.q0.result;
    assert.equal(top.id, 'P21000000002');
    assert.equal(top.name, 'ACME HOLDINGS, INC.');
    assert.deepEqual(top.type, [{ id: 'DOMP', name: 'Domestic For-Profit Corporation' }]);
    assert.ok(body.q0.result.length <= 3);
    for (const { result } of Object.values(body) as Array<{ result: Array<{ score: number; match: boolean }> }>) {
      for (const c of result) assert.ok(c.score >= 0 && c.score <= 100, String(c.score));
      assert.deepEqual(
        result.map((c) => c.score),
        result.map((c) => c.score).sort((a, b) => b - a),
      );
      assert.ok(result.filter((c) => c.match).length <= 1);
    }
    assert.equal(body.q1.result[0].id, 'L23000000007');
    assert.ok(body.q1.result[0].features.some((f: { id: string }) => f.id === 'officer'));
    assert.equal(body.q2.result[0].id, 'L23000000010');
    assert.equal(await spent(), before + 4);
    const { rows } = await t.db.pool.query<{ credits: number; route: string; key_id: string }>(
      `SELECT credits, route, key_id FROM request_logs WHERE request_id = $1`,
      [res.headers['x-request-id']],
    );
    assert.deepEqual(rows[0], {
      credits: 4,
      route: '/v1/reconcile/:token',
      key_id: (await t.db.pool.query('SELECT id FROM reconcile_credentials')).rows[0].id,
    });
  });

  it('is read from a GET too', async () => {
    const before = await spent();
    const res = await reconcile({ a: { query: 'Sunshine Foundation' } }, 'GET');
    assert.equal(res.statusCode, 200, res.body);
    assertSpecValid('reconciliation-result-batch', res.json());
    assert.equal(res.json().a.result[0].id.length > 0, true);
    assert.equal(await spent(), before + 1);
  });

  it('refuses what it cannot read, naming it, free', async () => {
    const before = await spent();
    const cases: Array<[unknown, string]> = [
      ['{', 'queries'],
      [{}, 'queries'],
      [{ q0: { query: 'x', properties: [{ pid: 'fei', v: '1' }] } }, 'queries.q0.properties.0.pid'],
      [{ q0: { query: 'x', properties: [{ pid: 'zip', v: 'Tampa' }] } }, 'queries.q0.properties.0.v'],
      [{ q0: { query: 'x', type: 'NOPE' } }, 'queries.q0.type'],
      [{ q0: { query: '' } }, 'queries.q0.query'],
      [{ q0: { query: 'x', limit: 0 } }, 'queries.q0.limit'],
      [{ q0: { query: 'x', extra: 1 } }, 'queries.q0.extra'],
      [Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`q${i}`, { query: 'acme' }])), 'queries'],
    ];
    for (const [queries, named] of cases) {
      const res = await reconcile(queries);
      assert.equal(res.statusCode, 400, `${JSON.stringify(queries).slice(0, 80)}: ${res.body}`);
      assert.ok(named in res.json().error.details, `${named} not in ${JSON.stringify(res.json().error.details)}`);
    }
    assert.equal(await spent(), before);
  });

  it('is refused whole, and refunded whole, when the balance does not cover every query', async () => {
    await t.db.pool.query('UPDATE workspaces SET monthly_remaining = 2 WHERE id = $1', [workspaceId]);
    const before = await spent();
    const res = await reconcile({ a: { query: 'acme' }, b: { query: 'acme' }, c: { query: 'acme' } });
    assert.equal(res.statusCode, 429, res.body);
    assert.match(res.json().error.message, /costs 3 credits/);
    assert.equal(await spent(), before);
    const { rows } = await t.db.pool.query('SELECT monthly_remaining::int AS n FROM workspaces WHERE id = $1', [
      workspaceId,
    ]);
    assert.equal(rows[0].n, 2);
    const two = await reconcile({ a: { query: 'acme' }, b: { query: 'acme' } });
    assert.equal(two.statusCode, 200, two.body);
    assert.equal(await spent(), before + 2);
  });
});
