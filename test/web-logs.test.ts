// The request log page on a busy workspace: keyset pages newer and older with no row lost or repeated, the filters
// (days, key, status, route, request id) and their refusals under each field, the CSV of the filtered range read in
// batches, one request in full, and the plans of its queries on the workspace's index.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { logPage, type LogQuery } from '../src/accounts/request-log-query.js';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

let t: TestApp;
let owner: WebClient;
let ws: string;
let keyA: string;
let keyB: string;
let otherKey: string;

/** Rows of key A, one a minute back from now (some eight days): more than the export reads in one batch. */
const ROWS_A = 12_000;

before(async () => {
  t = await testApp();
  owner = new WebClient(t, '10.6.0.1');
  await owner.signUp('logs@example.com');
  ws = (await t.db.pool.query<{ id: string }>('SELECT id FROM workspaces')).rows[0]!.id;
  const keys = await t.db.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE workspace_id = $1', [ws]);
  keyA = keys.rows[0]!.id;
  await owner.get('/account/keys');
  await owner.post('/account/keys', { name: 'second', kind: 'live' });
  keyB = (await t.db.pool.query<{ id: string }>('SELECT id FROM api_keys WHERE name = $1', ['second'])).rows[0]!.id;
  const other = await t.workspace('pro');
  otherKey = other.key.id;
  const user = (await t.db.pool.query<{ id: string }>('SELECT id FROM users')).rows[0]!.id;
  // Statuses: every 10th a 404, every 25th a 500 (unless a 404), the rest 200 with a credit.
  await t.db.pool.query(
    `INSERT INTO request_logs (request_id, at, workspace_id, key_id, user_id, surface, method, route, status,
                               duration_ms, credits, client_ip)
     SELECT 'req_a' || lpad(i::text, 23, '0'), $2::timestamptz - make_interval(mins => i), $1, $3, NULL,
            CASE WHEN i % 3 = 0 THEN 'mcp' ELSE 'rest' END, 'GET',
            CASE WHEN i % 2 = 0 THEN '/v1/entities/search' ELSE '/v1/officers/search' END,
            CASE WHEN i % 10 = 0 THEN 404 WHEN i % 25 = 0 THEN 500 ELSE 200 END, 1.25, 1, '192.0.2.7'
     FROM generate_series(1, $4::int) i
     UNION ALL
     SELECT 'req_b' || lpad(i::text, 23, '0'), $2::timestamptz - make_interval(mins => i * 7), $1, $5, NULL, 'rest',
            'GET', '/v1/filings/daily', 200, 2, 1, NULL
     FROM generate_series(1, 30) i
     UNION ALL
     SELECT 'req_m' || lpad(i::text, 23, '0'), $2::timestamptz - make_interval(mins => i * 11), $1, NULL, $6, 'rest',
            'GET', '/api/v1/entities/search', 200, 3, 1, NULL
     FROM generate_series(1, 5) i
     UNION ALL
     SELECT 'req_o' || lpad(i::text, 23, '0'), $2::timestamptz - make_interval(mins => i), $7, $8, NULL, 'rest',
            'GET', '/v1/entities/search', 404, 1, 0, NULL
     FROM generate_series(1, 50) i`,
    [ws, t.clock.now(), keyA, ROWS_A, keyB, user, other.workspace.id, otherKey],
  );
  await t.db.pool.query('ANALYZE request_logs');
});
after(() => t.close());

const ids = (body: string) => [...body.matchAll(/<a href="\/account\/logs\/(req_\w+)">/g)].map((m) => m[1]!);
const link = (body: string, label: string) =>
  new RegExp(`href="(/account/logs\\?[^"]*)">${label}<`).exec(body)?.[1]?.replace(/&amp;/g, '&') ?? null;

async function newest(where: string, limit: number, values: unknown[] = []): Promise<string[]> {
  const { rows } = await t.db.pool.query<{ request_id: string }>(
    `SELECT request_id FROM request_logs WHERE workspace_id = $1 ${where}
     ORDER BY at DESC, request_id DESC LIMIT ${limit}`,
    [ws, ...values],
  );
  return rows.map((r) => r.request_id);
}

describe('paging', () => {
  it('goes older and newer by keyset, losing and repeating no row', async () => {
    const pages: Array<{ ids: string[]; body: string }> = [];
    let url: string | null = '/account/logs';
    for (let i = 0; i < 4; i++) {
      const res = await owner.get(url!);
      assert.equal(res.statusCode, 200);
      pages.push({ ids: ids(res.body), body: res.body });
      url = link(res.body, 'Older');
    }
    assert.equal(link(pages[0]!.body, 'Newer'), null);
    assert.deepEqual(
      pages.flatMap((p) => p.ids),
      await newest('', 400),
    );
    assert.ok(pages.every((p) => p.ids.length === 100));
    // Back from the fourth page: the third again, then the second.
    const third = await owner.get(link(pages[3]!.body, 'Newer')!);
    assert.deepEqual(ids(third.body), pages[2]!.ids);
    const second = await owner.get(link(third.body, 'Newer')!);
    assert.deepEqual(ids(second.body), pages[1]!.ids);
    // The newest page reached by going newer has no newer link.
    const firstAgain = await owner.get(link(second.body, 'Newer')!);
    assert.deepEqual(ids(firstAgain.body), pages[0]!.ids);
    assert.equal(link(firstAgain.body, 'Newer'), null);
  });

  it('ends with no older link on the last page', async () => {
    const res = await owner.get(`/account/logs?key=${keyB}`);
    assert.deepEqual(ids(res.body), await newest('AND key_id = $2', 100, [keyB]));
    assert.equal(ids(res.body).length, 30);
    assert.equal(link(res.body, 'Older'), null);
  });
});

describe('filters', () => {
  it('refuses a bad value under its field and shows no rows', async () => {
    const cases: Array<[string, RegExp]> = [
      ['status=abc', /Status is a code such as 404 or a class such as 4xx/],
      ['status=600', /Status is a code/],
      ['status=4x', /Status is a code/],
      [`key=${otherKey}`, /Choose one of this workspace&#39;s keys|Choose one of this workspace's keys/],
      ['key=nonsense', /Choose one of this workspace/],
      ['from=2026-02-30', /Enter a day as YYYY-MM-DD/],
      ['to=yesterday', /Enter a day as YYYY-MM-DD/],
      ['from=2026-03-09&to=2026-03-08', /The last day comes on or after the first/],
      ['before=garbage', /This page link is malformed/],
      ['before=2026-03-10T11:00:00.000000Z~req_x&after=2026-03-10T11:00:00.000000Z~req_x', /before or after, not both/],
      ['request_id=req%20x', /A request id is written like req_/],
      ['status=404&status=500', /Status is a code/],
    ];
    for (const [query, message] of cases) {
      const res = await owner.get(`/account/logs?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.match(res.body, message, query);
      assert.deepEqual(ids(res.body), [], query);
      assert.match(res.body, /Correct the filters above/);
      const csv = await owner.get(`/account/logs.csv?${query}`);
      assert.equal(csv.statusCode, 400, query);
    }
  });

  it('filters by status, key, members, days, route and request id', async () => {
    const check = async (query: string, where: string, values: unknown[] = []) => {
      const res = await owner.get(`/account/logs?${query}`);
      assert.equal(res.statusCode, 200, query);
      assert.deepEqual(ids(res.body), await newest(where, 100, values), query);
      assert.ok(ids(res.body).length > 0, query);
    };
    await check('status=4xx', 'AND status BETWEEN 400 AND 499');
    await check('status=500', 'AND status = 500');
    await check(`key=${keyA}&status=404`, 'AND key_id = $2 AND status = 404', [keyA]);
    await check('key=members', 'AND key_id IS NULL AND user_id IS NOT NULL');
    await check('from=2026-03-05&to=2026-03-05', `AND at >= '2026-03-05' AND at < '2026-03-06'`);
    await check('route=officers', `AND route LIKE '%officers%'`);
    await check('request_id=req_b00000000000000000000007', `AND request_id = 'req_b00000000000000000000007'`);
    // Paging keeps the filters.
    const first = await owner.get('/account/logs?status=404&from=2026-03-04');
    const older = link(first.body, 'Older')!;
    assert.match(older, /status=404/);
    assert.match(older, /from=2026-03-04/);
    const second = ids((await owner.get(older)).body);
    assert.deepEqual([...ids(first.body), ...second], await newest(`AND status = 404 AND at >= '2026-03-04'`, 200));
  });
});

describe('the CSV export', () => {
  it('holds every row of the filtered range, newest first, read in batches', async () => {
    const res = await owner.get('/account/logs.csv');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /attachment; filename="requests-ws_\w+-2026-03-10\.csv"/);
    const lines = res.body.trimEnd().split('\r\n');
    assert.equal(lines[0], 'time,request_id,key_id,key_name,member,surface,method,route,status,duration_ms,credits');
    const rows = lines.slice(1).map((l) => l.split(','));
    assert.equal(rows.length, ROWS_A + 35);
    assert.deepEqual(
      rows.map((r) => r[1]),
      await newest('', ROWS_A + 100),
    );
    assert.equal(new Set(rows.map((r) => r[1])).size, rows.length);
    assert.deepEqual(rows.find((r) => r[1] === 'req_m00000000000000000000001')!.slice(4, 9), [
      'logs@example.com',
      'rest',
      'GET',
      '/api/v1/entities/search',
      '200',
    ]);
  });

  it('holds only the rows the filters match', async () => {
    const res = await owner.get(`/account/logs.csv?status=4xx&key=${keyA}`);
    const rows = res.body.trimEnd().split('\r\n').slice(1);
    assert.equal(rows.length, ROWS_A / 10);
    assert.ok(rows.every((r) => r.split(',')[8] === '404'));
  });
});

describe('one request', () => {
  it('shows its fields; another workspace’s request is not found', async () => {
    const res = await owner.get('/account/logs/req_a00000000000000000000030');
    assert.equal(res.statusCode, 200);
    for (const part of [
      /req_a00000000000000000000030/,
      /2026-03-10T11:30:00\.000000Z/,
      /<dd>MCP<\/dd>/,
      /GET \/v1\/entities\/search/,
      /<span class="pill warn">404<\/span>/,
      /<dd>1\.3 ms<\/dd>|<dd>1\.2 ms<\/dd>/,
      /192\.0\.2\.7/,
      /Parameters/,
    ])
      assert.match(res.body, part);
    assert.equal((await owner.get('/account/logs/req_o00000000000000000000001')).statusCode, 404);
    assert.equal((await owner.get('/account/logs/..%2Fetc')).statusCode, 404);
  });
});

describe('the queries', () => {
  /** The plans of the statements a page runs, as PostgreSQL would run them. */
  async function plans(q: LogQuery, cursor: Parameters<typeof logPage>[4]): Promise<string> {
    const seen: Array<[string, unknown[]]> = [];
    const spy = {
      query: (text: string, values: unknown[]) => {
        seen.push([text, values]);
        return t.db.pool.query(text, values);
      },
    } as unknown as pg.Pool;
    await logPage(spy, ws, q, t.clock.now(), cursor, 100);
    const out: string[] = [];
    for (const [text, values] of seen) {
      const { rows } = await t.db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
      out.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    return out.join('\n');
  }

  it('read the workspace index, never the whole table', async () => {
    const cursor = {
      at: '2026-03-09T12:00:00.000000Z',
      requestId: 'req_a00000000000000000001440',
      direction: 'older',
    } as const;
    for (const [q, c] of [
      [{}, null],
      [{}, cursor],
      [{}, { ...cursor, direction: 'newer' as const }],
      [{ status: { low: 400, high: 499 }, key: keyA }, cursor],
      [{ from: new Date('2026-03-05'), to: new Date('2026-03-06') }, null],
    ] as const) {
      const plan = await plans(q, c);
      assert.match(plan, /Index (Only )?Scan.*request_logs_workspace_idx/, plan);
      assert.doesNotMatch(plan, /Seq Scan on request_logs/, plan);
    }
  });
});
