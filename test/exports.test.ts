// Exports (docs/exports.md): a list's whole result set written in the background as CSV, JSON lines or Parquet holds
// exactly the rows the list's offset walk gives, in its order; it is charged a credit per started 1,000 rows; its
// link works without a key until it expires and only as signed; the same Idempotency-Key answers the same export;
// a plan without CSV, bad list parameters and a cancelled export are refused as the contract says; a worker that
// stops mid-export leaves the next one to finish it, the file whole and no row charged twice.
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { parquetReadObjects } from 'hyparquet';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { createExport, getExport } from '../src/exports/jobs.js';
import { startExports } from '../src/main/exports.js';
import { rm } from 'node:fs/promises';
import { testApp, type TestApp } from './support/app.js';
import { generatedRegistry } from './support/generated.js';
import { WebClient } from './support/web.js';

let t: TestApp;
let dir: string;
let key: string;
let workspace: string;
let city: string;

type Json = Record<string, any>;

before(async () => {
  t = await testApp({ now: '2026-11-22T12:00:00Z' });
  ({ dir, key, workspace, city } = await generatedRegistry(t, 4000, 65));
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (body: unknown, headers: Record<string, string> = {}, k = key) =>
  t.app.http.inject({
    method: 'POST',
    url: '/v1/exports',
    headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });

/** The exports' worker of this process, as a server runs one, until `stop`. */
const worker = (chunkRows?: number) =>
  startExports(t.db.pool, t.app.services, t.config, t.clock, () => {}, chunkRows ? { chunkRows } : {})!;

async function until(id: string, done: (e: Json) => boolean): Promise<Json> {
  for (let i = 0; i < 1200; i++) {
    const e = (await t.get(`/v1/exports/${id}`, key)).json().data;
    if (done(e)) return e;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`export ${id} did not end`);
}

/** Every row of `url` through offset pages, as a client reads the list. */
async function offsetWalk(url: string): Promise<Json[]> {
  const rows: Json[] = [];
  for (let offset = 0; ; offset += 200) {
    const body = (await t.get(`${url}${url.includes('?') ? '&' : '?'}limit=200&offset=${offset}`, key)).json();
    rows.push(...body.data);
    if (!body.pagination.has_more) return rows;
  }
}

/** The file behind a completed export's link, fetched without a key. */
async function download(e: Json): Promise<Buffer> {
  const res = await t.app.http.inject({
    method: 'GET',
    url: new URL(e.download.url).pathname + new URL(e.download.url).search,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.rawPayload;
}

async function rowsOf(e: Json, file: Buffer): Promise<Json[]> {
  if (e.format === 'csv') return parse(gunzipSync(file), { columns: true }) as Json[];
  if (e.format === 'jsonl')
    return gunzipSync(file)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
  const ab = new Uint8Array(file).buffer;
  return (await parquetReadObjects({ file: ab })) as Json[];
}

describe('exports', () => {
  it("every format holds the list's rows in its order, charged a credit per started 1,000 rows", async () => {
    const cases = [
      {
        operation: 'searchEntities',
        params: { principal_city: city, sort: 'name_asc' },
        format: 'csv',
        url: `/v1/entities/search?principal_city=${encodeURIComponent(city)}&sort=name_asc`,
      },
      { operation: 'searchEntities', params: {}, format: 'jsonl', url: '/v1/entities/search' },
      {
        operation: 'listNewBusinessLeads',
        params: { date_from: '2020-01-01' },
        format: 'parquet',
        url: '/v1/leads/new-businesses?date_from=2020-01-01',
      },
      { operation: 'searchOfficers', params: { name: 'smith' }, format: 'csv', url: '/v1/officers/search?name=smith' },
    ];
    const w = worker();
    try {
      for (const c of cases) {
        const expected = await offsetWalk(c.url);
        const before = (await ledgerCheck(t.db.pool, workspace)).monthly_remaining;
        const res = await post({ operation: c.operation, params: c.params, format: c.format });
        assert.equal(res.statusCode, 200, res.body);
        const made = res.json().data;
        assert.match(made.id, /^ex_[0-9a-f]{24}$/);
        assert.equal(made.download, null);
        const done = await until(made.id, (e) => e.status !== 'queued' && e.status !== 'running');
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.equal(done.total_rows, expected.length);
        assert.equal(done.done_rows, expected.length);
        assert.equal(done.credits, Math.ceil(expected.length / 1000));
        assert.equal((await ledgerCheck(t.db.pool, workspace)).monthly_remaining, before - done.credits);
        const rows = await rowsOf(done, await download(done));
        const id = (r: Json) => String(r.document_number ?? JSON.stringify(r));
        assert.deepEqual(rows.map(id), expected.map(id), `${c.operation} as ${c.format}`);
        // Every field as the list shows it (CSV holds text; nulls are blank there).
        const shown = (r: Json) =>
          c.format === 'csv'
            ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? '' : String(v)]))
            : r;
        assert.deepEqual(rows.slice(0, 5), expected.slice(0, 5).map(shown));
      }
      assert.ok((await offsetWalk('/v1/entities/search')).length > 3000, 'an export of several thousand rows');
    } finally {
      await w.stop();
    }
    const events = await t.db.pool.query(
      `SELECT payload FROM monitoring_events WHERE workspace_id = $1 AND type = 'export.completed'`,
      [workspace],
    );
    assert.equal(events.rowCount, 4);
    assert.equal(events.rows[0].payload.data.status, 'completed');
  });

  it('the link: without a key until it expires, only as signed', async () => {
    const w = worker();
    let done: Json;
    try {
      const made = (await post({ operation: 'searchAgents', params: { name: 'a' }, format: 'jsonl' })).json().data;
      done = await until(made.id, (e) => e.status === 'completed');
    } finally {
      await w.stop();
    }
    const link = new URL(done.download.url);
    const tampered = link.pathname + link.search.replace(/signature=./, 'signature=X');
    for (const url of [tampered, link.pathname, `${link.pathname}?expires=1&signature=x`]) {
      const res = await t.app.http.inject({ method: 'GET', url });
      assert.ok([400, 403].includes(res.statusCode), `${url}: ${res.statusCode} ${res.body}`);
      assert.ok(res.json().error.code);
    }
    t.clock.advance(25 * 3600 * 1000);
    try {
      const res = await t.app.http.inject({ method: 'GET', url: link.pathname + link.search });
      assert.equal(res.statusCode, 403);
      assert.match(res.json().error.message, /expired/);
      // A new link from the export works again.
      const again = (await t.get(`/v1/exports/${done.id}`, key)).json().data;
      assert.ok((await download(again)).length > 0);
    } finally {
      t.clock.advance(-25 * 3600 * 1000);
    }
  });

  it('an Idempotency-Key answers the same export; other parameters under it are a 409', async () => {
    // Parameters whose stored (jsonb) key order differs from the order they are validated in.
    const body = { operation: 'searchEntities', params: { principal_city: city, sort: 'name_asc', status: 'active' } };
    const first = (await post(body, { 'idempotency-key': 'export-1' })).json().data;
    const again = await post(body, { 'idempotency-key': 'export-1' });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().data.id, first.id);
    const other = await post({ ...body, format: 'jsonl' }, { 'idempotency-key': 'export-1' });
    assert.equal(other.statusCode, 409, other.body);
    // Cancelled before any worker took it: no file, no charge.
    const cancelled = await t.app.http.inject({
      method: 'POST',
      url: `/v1/exports/${first.id}/cancel`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(cancelled.json().data.status, 'cancelled');
    assert.equal(cancelled.json().data.credits, 0);
  });

  it('refusals: a plan without CSV, the lead feed without it, bad list parameters, an unknown list', async () => {
    const dev = (await t.workspace('developer')).key.key;
    const noCsv = await post({ operation: 'searchEntities' }, {}, dev);
    assert.equal(noCsv.statusCode, 403);
    assert.match(noCsv.json().error.message, /CSV/);
    const pro = (await t.workspace('pro')).key.key;
    const noLeads = await post({ operation: 'listNewBusinessLeads' }, {}, pro);
    assert.equal(noLeads.statusCode, 403);
    assert.match(noLeads.json().error.message, /lead feed/i);
    const bad = await post({ operation: 'searchEntities', params: { status: 'sleeping', limit: 5, colour: 'red' } });
    assert.equal(bad.statusCode, 400, bad.body);
    const details = bad.json().error.details;
    assert.deepEqual(Object.keys(details).sort(), ['params.colour', 'params.limit', 'params.status']);
    assert.equal(details['params.colour'], 'unknown parameter');
    assert.match(details['params.limit'], /reads every page/);
    const unknown = await post({ operation: 'getEntity', format: 'xlsx' });
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(Object.keys(unknown.json().error.details).sort(), ['format', 'operation']);
    assert.equal((await t.db.pool.query('SELECT 1 FROM exports WHERE workspace_id <> $1', [workspace])).rowCount, 0);
  });

  it("the dashboard's Exports page lists a workspace's exports and downloads a completed one's file", async () => {
    const ana = new WebClient(t, '10.6.0.1');
    const ben = new WebClient(t, '10.6.0.2');
    await ana.signUp('ana@example.com');
    await ben.signUp('ben@example.com');
    const { rows } = await t.db.pool.query<{ id: string }>(
      `SELECT m.workspace_id AS id FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE u.email = $1`,
      ['ana@example.com'],
    );
    const ws = rows[0]!.id;
    const request = { operation: 'searchEntities', params: { principal_city: city }, format: 'csv' as const };
    const { export: made } = await createExport(
      t.db.pool,
      { workspace: ws, keyId: null, userId: null, idempotencyKey: null, ...request },
      t.clock.now(),
    );
    const w = worker();
    try {
      for (let i = 0; i < 600 && (await getExport(t.db.pool, ws, made.id))?.status !== 'completed'; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await w.stop();
    }
    const page = await ana.get('/account/exports');
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(made.id));
    assert.match(page.body, new RegExp(`href="/account/exports/${made.id}/download"[^>]*>Download`));
    const file = await ana.get(`/account/exports/${made.id}/download`);
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'application/gzip');
    const rowsOfFile = parse(gunzipSync(file.rawPayload), { columns: true }) as Json[];
    assert.deepEqual(
      rowsOfFile.map((r) => r.document_number),
      (await offsetWalk(`/v1/entities/search?principal_city=${encodeURIComponent(city)}`)).map(
        (r) => r.document_number,
      ),
    );
    // Another workspace's member sees none of it.
    assert.ok(!(await ben.get('/account/exports')).body.includes(made.id));
    assert.equal((await ben.get(`/account/exports/${made.id}/download`)).statusCode, 303);
  });

  it('a worker stopped mid-export leaves the next to finish it: the file whole, no row charged twice', async () => {
    for (const format of ['csv', 'parquet'] as const) {
      const expected = await offsetWalk('/v1/entities/search?sort=date_oldest');
      const made = (await post({ operation: 'searchEntities', params: { sort: 'date_oldest' }, format })).json().data;
      // Chunks of 500 rows: the first worker is stopped between two.
      const first = worker(500);
      await until(made.id, (e) => e.done_rows > 0);
      await first.stop();
      const stopped = (await t.get(`/v1/exports/${made.id}`, key)).json().data;
      assert.ok(stopped.done_rows < expected.length, `stopped at ${stopped.done_rows} of ${expected.length}`);
      const second = worker(500);
      let done: Json;
      try {
        done = await until(made.id, (e) => e.status === 'completed');
      } finally {
        await second.stop();
      }
      assert.equal(done.credits, Math.ceil(expected.length / 1000));
      const rows = await rowsOf(done, await download(done));
      assert.deepEqual(
        rows.map((r) => r.document_number),
        expected.map((r) => r.document_number),
        format,
      );
    }
  });
});
