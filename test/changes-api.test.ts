// GET /v1/changes (docs/contract.md, "Change feed"): a walk by cursor reads exactly what one read does, and reads on
// after a later import with exactly its changes; each filter and start keeps exactly its changes; MCP answers as
// REST; every bad input is a 400 in the envelope that costs nothing; a position the purge has passed is a 410.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { importRegistry } from '../src/main/importer.js';
import { purgeChanges } from '../src/registry/feed/purge.js';
import type { ChangeRow } from '../src/registry/feed/read.js';
import { testApp, type TestApp } from './support/app.js';
import { changedRegistry, newestChange, readFeed, type ChangedRegistry } from './support/changes.js';
import { Contract } from './support/contract.js';

let t: TestApp;
let r: ChangedRegistry;
let contract: Contract;

interface Page {
  data: ChangeRow[];
  pagination: { limit: number; offset: number; total: number; has_more: boolean; next_cursor: string };
}

before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z' });
  r = await changedRegistry(t, 12_000, 73);
  contract = new Contract((await t.get('/v1/openapi.json')).json());
});
after(async () => {
  await t.close();
  await rm(r.dir, { recursive: true, force: true });
});

async function page(url: string): Promise<Page> {
  const res = await t.get(url, r.key);
  contract.check(url, res);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.json() as Page;
}

const balance = async (): Promise<number> => (await ledgerCheck(t.db.pool, r.workspace)).balance;
const ledgerRows = async (): Promise<number> =>
  (await t.db.pool.query('SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1', [r.workspace])).rows[0]
    .n;

describe('the change feed as pages', { timeout: 120_000 }, () => {
  it('a walk by cursor reads what one read does, then exactly what a later import adds', async () => {
    const all = await readFeed(t, r.key);
    assert.ok(all.length > 60, `${all.length} changes`);
    assert.deepEqual(
      all.map((c) => c.sequence),
      all.map((_, i) => i + 1),
      'numbered 1, 2, 3... without gaps',
    );
    const spent = await balance();
    const walked: ChangeRow[] = [];
    let next = '/v1/changes?limit=7';
    let body: Page;
    let pages = 0;
    do {
      body = await page(next);
      pages++;
      assert.equal(body.pagination.total, all.length, 'the first page counts the walk');
      assert.equal(body.pagination.offset, walked.length);
      walked.push(...body.data);
      next = `/v1/changes?limit=7&cursor=${body.pagination.next_cursor}`;
    } while (body.pagination.has_more);
    assert.deepEqual(walked, all);
    assert.equal(spent - (await balance()), pages, 'a credit a page');
    // The end of the walk is a position: empty until an import, then exactly the import's changes.
    assert.deepEqual((await page(next)).data, []);
    const newest = await newestChange(t);
    await importRegistry(t.db.pool, [...r.held]);
    const added = await readFeed(t, r.key, `after_sequence=${newest}`);
    assert.ok(added.length > 5 && added.every((c) => c.sequence > newest));
    const later = await page(next.replace('limit=7', 'limit=1000'));
    assert.deepEqual(later.data, added);
    assert.equal(later.pagination.has_more, false);
  });

  it('each filter and start keeps exactly its changes', async () => {
    const all = await readFeed(t, r.key);
    const counts = new Map<string, number>();
    for (const c of all) if (c.county) counts.set(c.county, (counts.get(c.county) ?? 0) + 1);
    const county = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const types = [...new Set(all.map((c) => c.entity_type))].filter((x) => x !== null).slice(0, 2) as string[];
    const cases: Array<[string, (c: ChangeRow) => boolean]> = [
      ['kind=created', (c) => c.kind === 'created'],
      ['kind=updated,status_changed', (c) => c.kind === 'updated' || c.kind === 'status_changed'],
      ['kind=filing&kind=created', (c) => c.kind === 'filing' || c.kind === 'created'],
      [`entity_type=${types.join(',')}`, (c) => types.includes(c.entity_type ?? '')],
      [`county=${encodeURIComponent(county.toLowerCase())}`, (c) => c.county === county],
      [`county=${encodeURIComponent(county)}&kind=filing`, (c) => c.county === county && c.kind === 'filing'],
      ['after_sequence=40', (c) => c.sequence > 40],
    ];
    for (const [query, keep] of cases) {
      const expected = all.filter(keep);
      assert.ok(expected.length > 0 && expected.length < all.length, `${query}: ${expected.length} of ${all.length}`);
      assert.deepEqual(await readFeed(t, r.key, query), expected, query);
    }
    // An import's time starts the walk at its first change; a date at 00:00 UTC that day.
    const last = all.at(-1)!;
    const since = all.filter((c) => c.imported_at >= last.imported_at);
    assert.deepEqual(await readFeed(t, r.key, `since=${encodeURIComponent(last.imported_at)}`), since);
    assert.deepEqual(await readFeed(t, r.key, `since=${last.imported_at.slice(0, 10)}`), all);
    assert.deepEqual(await readFeed(t, r.key, 'since=2099-01-01'), []);
  });

  it('answers the same over MCP', async () => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${r.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_changes', arguments: { kind: ['created'], after_sequence: 3, limit: 5 } },
      },
    });
    const tool = res.json().result.structuredContent as Page;
    const rest = await page('/v1/changes?kind=created&after_sequence=3&limit=5');
    assert.deepEqual(tool.data, rest.data);
    assert.equal(tool.data.length, 5);
  });

  it('every bad input is a 400 naming it, in the envelope, and costs nothing', async () => {
    const cursor = (await page('/v1/changes?limit=2')).pagination.next_cursor;
    const spent = await balance();
    const rows = await ledgerRows();
    const bad: Array<[string, string]> = [
      ['kind=nope', 'kind'],
      ['kind=', 'kind'],
      ['entity_type=flal', 'entity_type'],
      ['county=Atlantis', 'county'],
      ['after_sequence=-1', 'after_sequence'],
      ['after_sequence=1.5', 'after_sequence'],
      ['since=2026-13-01', 'since'],
      ['since=yesterday', 'since'],
      ['after_sequence=3&since=2026-01-01', 'since'],
      ['limit=0', 'limit'],
      ['offset=5', 'offset'],
      ['cursor=abc.def', 'cursor'],
      [`cursor=${cursor}&kind=created`, 'cursor'],
      ['nope=1', 'nope'],
      ['county=a%00b', 'county'],
    ];
    for (const [query, param] of bad) {
      const url = `/v1/changes?${query}`;
      const res = await t.get(url, r.key);
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      contract.check(url, res);
      const error = res.json().error;
      assert.equal(error.code, 'bad_request');
      assert.ok(error.details?.[param], `${query}: ${res.body}`);
    }
    assert.equal(await balance(), spent);
    assert.equal(await ledgerRows(), rows, 'refused before any credit is reserved');
  });

  it('a position the purge has passed is a 410 that costs nothing; the positions after it read on', async () => {
    const oldCursor = (await page('/v1/changes?limit=2')).pagination.next_cursor;
    const newest = await newestChange(t);
    // A year and more later, the purge takes every change imported so far.
    const { changes_deleted } = await purgeChanges(t.db.pool, new Date(Date.now() + 400 * 86_400_000));
    assert.equal(changes_deleted, newest);
    const spent = await balance();
    for (const url of [
      '/v1/changes?after_sequence=0',
      `/v1/changes?after_sequence=${newest - 1}`,
      `/v1/changes?limit=2&cursor=${oldCursor}`,
      '/v1/changes?since=2026-01-01',
    ]) {
      const res = await t.get(url, r.key);
      assert.equal(res.statusCode, 410, `${url}: ${res.body}`);
      contract.check(url, res);
      assert.equal(res.json().error.code, 'cursor_expired');
      assert.match(res.json().error.message, new RegExp(`after_sequence=${newest}`));
    }
    assert.equal(await balance(), spent);
    assert.deepEqual((await page(`/v1/changes?after_sequence=${newest}`)).data, []);
    assert.deepEqual((await page('/v1/changes')).data, [], 'without a start: from the oldest kept');
  });
});
