// Batch matching (docs/matching.md) and names as customers write them (docs/search.md): abbreviations and
// mistyped legal forms in the search, the matcher's grades, scores and verdicts on namesakes, its credits
// (one per query, a call served whole or refused whole), its refusals, and the same answer over MCP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { findRequestLog } from '../src/accounts/request-log.js';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { testApp, type TestApp } from './support/app.js';
import { importCorps, person, type Corp } from './support/records.js';

const entities: Corp[] = [
  { doc: 'P24000000001', name: 'ABC INTERNATIONAL, INC.', type: 'DOMP', city: 'TAMPA', zip: '33602' },
  { doc: 'P24000000002', name: 'SMITH MANAGEMENT, INC.', type: 'DOMP', city: 'MIAMI', zip: '33101' },
  { doc: 'L24000000003', name: 'PERMAFROST DEVELOPMENT LIMITED LIABILITY COMPANY', city: 'OCALA', zip: '34470' },
  {
    doc: 'L24000000004',
    name: 'SUNSHINE HOLDINGS LLC',
    city: 'ORLANDO',
    zip: '32801',
    street: '12 PALMETTO WAY',
    officers: [{ title: 'MGR', name: person('DOE', 'JANE') }],
  },
  {
    doc: 'L24000000005',
    name: 'SUNSHINE HOLDINGS LLC',
    city: 'MIAMI',
    zip: '33130',
    street: '400 BRICKELL AVE',
    officers: [{ title: 'MGR', name: person('ROE', 'RICHARD') }],
  },
  { doc: 'L24000000006', name: 'BLUE OCEAN VENTURES LLC', city: 'NAPLES', zip: '34102' },
  { doc: 'L24000000007', name: 'OCEAN BLUE VENTURES LLC', city: 'NAPLES', zip: '34102' },
  { doc: 'P24000000008', name: 'KESTREL MARINE SUPPLY INC', type: 'DOMP', agent: 'CORPORATION SERVICE COMPANY' },
  { doc: 'L24000000009', name: 'SUNSHINE HOLDINGS GROUP LLC', city: 'TAMPA', zip: '33602' },
  {
    doc: 'L24000000010',
    name: 'HERON FOUNDATION LLC',
    city: 'OCALA',
    officers: [{ title: 'MGR', name: person('HUDSON', 'LINDA', 'P', 'JR') }],
  },
  { doc: 'L24000000011', name: 'HERON FOUNDATION LLC', city: 'OCALA' },
];

let t: TestApp;
let key: string;
let workspaceId: string;

/** A name whose searches the read pool stops as the statement timeout would, while set. */
let stoppedName: string | null = null;
const stopped = (values: unknown): boolean =>
  stoppedName !== null &&
  Array.isArray(values) &&
  values.some((v) => typeof v === 'string' && v.includes(stoppedName!));
/** The read pool, but a statement whose parameters hold `stoppedName` fails with the timeout's code. */
const timingOut = (pool: pg.Pool): pg.Pool =>
  new Proxy(pool, {
    get(target, prop) {
      if (prop === 'query')
        return (config: string | pg.QueryConfig, values?: unknown) =>
          stopped(typeof config === 'object' ? config.values : values)
            ? Promise.reject(
                Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
              )
            : target.query(config as string, values as unknown[]);
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z', readPool: timingOut });
  await importCorps(t.db.pool, entities);
  const w = await t.workspace('pro');
  await setPerMinute(t.db.pool, w.workspace.id, 1_000_000);
  key = w.key.key;
  workspaceId = w.workspace.id;
});
after(() => t.close());

const post = (body: unknown, as = key) =>
  t.app.http.inject({
    method: 'POST',
    url: '/v1/entities/match',
    headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

interface Candidate {
  document_number: string;
  score: number;
  match: boolean;
  features: Record<string, { grade: string; contribution: number }>;
}
interface Result {
  reference: string | null;
  match: Candidate | null;
  candidates: Candidate[];
}

async function match(queries: object[], extra: object = {}): Promise<Result[]> {
  const res = await post({ queries, ...extra });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { data: { algorithm: string; results: Result[] } };
  assert.equal(body.data.algorithm, 'match-v1');
  return body.data.results;
}

const searchDocs = async (route: string): Promise<string[]> => {
  const res = await t.get(`/v1/${route}`, key);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { data: Array<{ document_number?: string; agent_name?: string }> }).data.map(
    (h) => h.document_number ?? h.agent_name!,
  );
};

describe('names as customers write them, in the search', () => {
  it('a short form finds the long one and back (INTL, MGMT)', async () => {
    assert.deepEqual(await searchDocs('entities/search?name=abc+intl'), ['P24000000001']);
    assert.deepEqual(await searchDocs('entities/search?name=SMITH+MGMT%2C+INC.'), ['P24000000002']);
  });

  it('a mistyped legal-form word is still a legal form', async () => {
    const q = encodeURIComponent('PERMAFROST DEVELOPMENT LIITED LIABIITY COMPANY');
    assert.deepEqual(await searchDocs(`entities/search?name=${q}`), ['L24000000003']);
    const agents = await searchDocs(`agents/search?name=${encodeURIComponent('COTPORATION SERVICE COMPANY')}`);
    assert.deepEqual(agents, ['CORPORATION SERVICE COMPANY']);
  });
});

describe('POST /v1/entities/match', () => {
  it('grades each feature and matches the one entity a row names, answering in order with the references', async () => {
    const [abc, miami, orlando, none] = await match([
      { name: 'The ABC Intl Inc', city: 'Tampa', zip: '33602', reference: 'r1' },
      { name: 'Sunshine Holdings', city: 'Miami', reference: 'r2' },
      { name: 'sunshine holdings llc', officer: 'Jane Doe', reference: 'r3' },
      { name: 'Quokka Widgets LLC' },
    ]);
    assert.equal(abc!.reference, 'r1');
    assert.equal(abc!.match?.document_number, 'P24000000001');
    assert.deepEqual(Object.fromEntries(Object.entries(abc!.match!.features).map(([f, s]) => [f, s.grade])), {
      name: 'exact',
      legal_form: 'exact',
      address: 'absent',
      city: 'exact',
      zip: 'exact',
      officer: 'absent',
    });
    assert.equal(abc!.match!.score, 1);
    // Shares add up to the score.
    const shares = Object.values(abc!.match!.features).reduce((n, f) => n + f.contribution, 0);
    assert.ok(Math.abs(shares - abc!.match!.score) < 0.001);
    assert.equal(miami!.match?.document_number, 'L24000000005');
    assert.equal(miami!.candidates[1]!.features.city!.grade, 'different');
    assert.equal(orlando!.match?.document_number, 'L24000000004');
    assert.equal(orlando!.match!.features.officer!.grade, 'exact');
    assert.equal(none!.reference, null);
    assert.equal(none!.match, null);
  });

  it('matches nothing where namesakes tie, and says so with their equal scores', async () => {
    const [r] = await match([{ name: 'SUNSHINE HOLDINGS LLC' }], { limit: 5 });
    assert.equal(r!.match, null);
    const [a, b] = r!.candidates;
    assert.equal(a!.score, b!.score);
    assert.deepEqual([a!.document_number, b!.document_number].sort(), ['L24000000004', 'L24000000005']);
    assert.ok(r!.candidates.every((c) => !c.match));
  });

  it('reads reordered words as close, not exact, and a typo and a missing legal form as close names', async () => {
    const [reordered, typo] = await match([
      { name: 'Ocean Blue Ventures LLC', city: 'Naples' },
      { name: 'Permafrost Devlopment', city: 'Ocala' },
    ]);
    assert.equal(reordered!.match?.document_number, 'L24000000007');
    const blue = reordered!.candidates.find((c) => c.document_number === 'L24000000006')!;
    assert.equal(blue.features.name!.grade, 'close');
    assert.equal(typo!.match?.document_number, 'L24000000003');
    assert.equal(typo!.match!.features.name!.grade, 'close');
    assert.equal(typo!.match!.features.legal_form!.grade, 'absent');
  });

  it('reads an officer without an initial or suffix one side lacks; no officers counts half', async () => {
    const [r] = await match([{ name: 'Heron Fdn LLC', officer: 'Linda Hudson' }]);
    assert.equal(r!.match?.document_number, 'L24000000010');
    assert.equal(r!.match!.features.officer!.grade, 'exact');
    assert.equal(r!.match!.features.name!.grade, 'exact');
    const other = r!.candidates.find((c) => c.document_number === 'L24000000011')!;
    assert.equal(other.features.officer!.grade, 'absent');
    assert.ok(other.features.officer!.contribution > 0 && other.score < r!.match!.score);
    const [initial] = await match([{ name: 'Heron Foundation LLC', officer: 'Linda Q Hudson' }]);
    assert.equal(initial!.candidates[0]!.features.officer!.grade, 'close');
  });

  it('costs one credit per query, once, and refuses a call the balance does not cover whole', async () => {
    const before = (await ledgerCheck(t.db.pool, workspaceId)).monthly_remaining;
    const res = await post({ queries: [{ name: 'abc intl' }, { name: 'smith mgmt' }, { name: 'blue ocean' }] });
    assert.equal(res.statusCode, 200);
    assert.equal((await ledgerCheck(t.db.pool, workspaceId)).monthly_remaining, before - 3);
    const log = await findRequestLog(t.db.pool, (res.json() as { meta: { request_id: string } }).meta.request_id);
    assert.equal(log?.credits, 3);

    const { workspace, key: poor } = await t.workspace('developer');
    await t.db.pool.query(
      `UPDATE workspaces SET monthly_remaining = 2, subscription_status = 'cancelled' WHERE id = $1`,
      [workspace.id],
    );
    const refused = await post({ queries: [{ name: 'a1' }, { name: 'b2' }, { name: 'c3' }] }, poor.key);
    assert.equal(refused.statusCode, 402, refused.body);
    assert.match((refused.json() as { error: { message: string } }).error.message, /costs 3 credits/);
    const { rows } = await t.db.pool.query('SELECT monthly_remaining FROM workspaces WHERE id = $1', [workspace.id]);
    assert.equal(Number(rows[0].monthly_remaining), 2);
    const ok = await post({ queries: [{ name: 'abc intl' }, { name: 'smith mgmt' }] }, poor.key);
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('answers a query whose search timed out as such, free, beside the others; all timing out fail free', async () => {
    const before = (await ledgerCheck(t.db.pool, workspaceId)).monthly_remaining;
    stoppedName = 'TIMES OUT';
    try {
      const res = await post({
        queries: [{ name: 'abc intl' }, { name: 'Times Out Holdings' }, { name: 'smith mgmt' }],
      });
      assert.equal(res.statusCode, 200, res.body);
      const results = (res.json() as { data: { results: Array<Result & { error: string | null }> } }).data.results;
      assert.deepEqual(
        results.map((r) => [r.error, r.match?.document_number ?? null]),
        [
          [null, 'P24000000001'],
          ['query_timeout', null],
          [null, 'P24000000002'],
        ],
      );
      assert.deepEqual(results[1]!.candidates, []);
      const log = await findRequestLog(t.db.pool, (res.json() as { meta: { request_id: string } }).meta.request_id);
      assert.equal(log?.credits, 2);
      assert.equal((await ledgerCheck(t.db.pool, workspaceId)).monthly_remaining, before - 2);

      const none = await post({ queries: [{ name: 'Times Out Holdings' }, { name: 'times out' }] });
      assert.equal(none.statusCode, 500, none.body);
      assert.match((none.json() as { error: { message: string } }).error.message, /took too long/);
      const one = await post({ queries: [{ name: 'Times Out Holdings' }] });
      assert.equal(one.statusCode, 500, one.body);
    } finally {
      stoppedName = null;
    }
    const after = await ledgerCheck(t.db.pool, workspaceId);
    assert.equal(after.monthly_remaining, before - 2);
    assert.ok(after.consistent);
    const { rows } = await t.db.pool.query(
      'SELECT count(*)::int AS n FROM credit_reservations WHERE workspace_id = $1',
      [workspaceId],
    );
    assert.equal(rows[0].n, 0);
  });

  it('refuses bad input naming the parameter, and charges nothing', async () => {
    const before = (await ledgerCheck(t.db.pool, workspaceId)).monthly_remaining;
    const cases: Array<[object, string]> = [
      [{ queries: [] }, 'queries'],
      [{ queries: Array.from({ length: 101 }, () => ({ name: 'x' })) }, 'queries'],
      [{ queries: [{ city: 'Tampa' }] }, 'queries.0.name'],
      [{ queries: [{ name: 'abc', zip: '3360' }] }, 'queries.0.zip'],
      [{ queries: [{ name: 'abc', colour: 'red' }] }, 'colour'],
      [{ queries: [{ name: 'abc' }], algorithm: 'match-v0' }, 'algorithm'],
      [{ queries: [{ name: 'abc' }], limit: 11 }, 'limit'],
    ];
    for (const [body, param] of cases) {
      const res = await post(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      const error = (res.json() as { error: { code: string; details: Record<string, string> } }).error;
      assert.equal(error.code, 'bad_request');
      assert.ok(
        Object.keys(error.details).some((k) => k === param || k.endsWith(param)),
        JSON.stringify(error),
      );
    }
    assert.equal((await ledgerCheck(t.db.pool, workspaceId)).monthly_remaining, before);
  });

  it('answers the same over MCP as the match_entities tool', async () => {
    const url = new URL('/mcp', await t.app.http.listen({ host: '127.0.0.1', port: 0 }));
    const client = new Client({ name: 'registry-lookup-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
    const tools = await client.listTools();
    assert.ok(tools.tools.some((tool) => tool.name === 'match_entities'));
    const queries = [{ name: 'abc intl', city: 'Tampa' }];
    const result = (await client.callTool({ name: 'match_entities', arguments: { queries } })) as CallToolResult;
    assert.equal(result.isError, undefined);
    const data = (result.structuredContent as { data: { results: Result[] } }).data;
    assert.deepEqual(data.results, await match(queries));
    await client.close();
  });
});
