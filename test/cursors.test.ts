// Cursors (docs/contract.md, "Cursors"): a walk by cursor returns what the offset walk returns, every list; a walk
// that a daily file interrupts reads on as the data was at its first page, neither skipping nor repeating a row
// though the file renames, moves and adds entities across its path; and a cursor is refused when it is not ours,
// belongs to another query, comes with an offset, or is pinned to a version no longer kept.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importFiles } from '../src/registry/import/index.js';
import { createSearch, type EntitySearch } from '../src/search/index.js';
import { testApp, type TestApp } from './support/app.js';
import { generatedRegistry } from './support/generated.js';
import { corporate, fileOf, type Corp } from './support/records.js';

let t: TestApp;
let dir: string;
let key: string;
/** The city with the most entities, and the word most agents' names hold. */
let city: string;
let agentWord: string;
/** The day with the most filings. */
let busiestDay: string;

type Json = Record<string, unknown>;
interface ListBody {
  data: Json[];
  pagination: { limit: number; offset: number; total: number; has_more: boolean; next_cursor: string | null };
}

before(async () => {
  t = await testApp({ now: '2026-11-22T12:00:00Z' });
  ({ dir, key, city } = await generatedRegistry(t, 3000, 64));
  const words = await t.db.pool.query<{ w: string }>(
    'SELECT w FROM registry.agents, unnest(name_words) w GROUP BY w ORDER BY count(*) DESC, w LIMIT 1',
  );
  agentWord = words.rows[0]!.w;
  const days = await t.db.pool.query<{ d: string }>(
    'SELECT filed_date::text AS d FROM registry.events GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1',
  );
  busiestDay = days.rows[0]!.d;
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

async function page(url: string): Promise<ListBody> {
  const res = await t.get(url, key);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res.json() as ListBody;
}

const withParam = (url: string, name: string, value: string | number): string =>
  `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(String(value))}`;

/** Every row of `url`, page by page through offset. */
async function offsetWalk(url: string, limit: number): Promise<Json[]> {
  const rows: Json[] = [];
  for (let offset = 0; ; offset += limit) {
    const body = await page(withParam(withParam(url, 'limit', limit), 'offset', offset));
    rows.push(...body.data);
    if (!body.pagination.has_more) return rows;
  }
}

/** A walk through next_cursor, page by page: `next` reads the next page, until `done`. */
class CursorWalk {
  readonly rows: Json[] = [];
  readonly totals = new Set<number>();
  private cursor: string | null = null;
  private pages = 0;
  done = false;

  constructor(
    private readonly url: string,
    private readonly limit: number,
  ) {}

  async next(): Promise<void> {
    const url = withParam(this.url, 'limit', this.limit);
    const body = await page(this.cursor ? withParam(url, 'cursor', this.cursor) : url);
    assert.equal(body.pagination.offset, this.pages * this.limit);
    this.pages++;
    this.rows.push(...body.data);
    this.totals.add(body.pagination.total);
    assert.equal(body.pagination.has_more, body.pagination.next_cursor !== null);
    this.cursor = body.pagination.next_cursor;
    this.done = this.cursor === null;
  }

  async finish(): Promise<this> {
    while (!this.done) await this.next();
    return this;
  }
}

const docs = (rows: Json[]): string[] => rows.map((r) => String(r.document_number ?? r.id ?? JSON.stringify(r)));

describe('a walk by cursor returns the offset walk', () => {
  const lists = (): string[] => [
    '/v1/entities/search',
    '/v1/entities/search?sort=name_asc',
    '/v1/entities/search?sort=name_desc&status=active',
    '/v1/entities/search?sort=date_oldest',
    `/v1/entities/search?principal_city=${encodeURIComponent(city)}`,
    `/v1/entities/search?principal_city=${encodeURIComponent(city)}&sort=name_desc`,
    '/v1/entities/search?entity_type=FLAL&sort=date_newest',
    '/v1/entities/search?name=holdings',
    '/v1/officers/search?name=smith',
    `/v1/agents/search?name=${agentWord}`,
    `/v1/addresses/search?query=${encodeURIComponent(city)}`,
    '/v1/filings/recent?days=90',
    `/v1/filings/daily?date=${busiestDay}`,
    '/v1/leads/new-businesses',
  ];
  it('every list, in pages of 7 and of 100', async () => {
    // The newest day (the default) has a few filings: its walk is compared, not required to page.
    for (const limit of [1, 2]) {
      const url = '/v1/filings/daily';
      assert.deepEqual(docs((await new CursorWalk(url, limit).finish()).rows), docs(await offsetWalk(url, limit)));
    }
    for (const url of lists()) {
      for (const limit of [7, 100]) {
        const expected = await offsetWalk(url, limit);
        const walked = await new CursorWalk(url, limit).finish();
        assert.deepEqual(docs(walked.rows), docs(expected), `${url} by ${limit}`);
        assert.deepEqual([...walked.totals], [expected.length], url);
      }
      assert.ok((await offsetWalk(url, 100)).length > 7, `${url} has rows enough to page`);
    }
  });

  it('the search read on by keys, every sort, through its index and sorting all', async () => {
    const version = async (): Promise<number> =>
      Number((await t.db.pool.query('SELECT version FROM dataset_state')).rows[0].version);
    for (const search of [createSearch(t.db.pool, version), createSearch(t.db.pool, version, { sortAllBelow: 0 })]) {
      for (const q of [
        { sort: 'name_asc' },
        { sort: 'name_desc', status: ['active'] },
        { sort: 'date_oldest', entity_type: ['FLAL'] },
        { sort: 'date_newest', principal_city: city },
        { sort: 'date_oldest', status: ['inactive'], entity_type: ['DOMP'] },
      ] as Array<Partial<EntitySearch>>) {
        const all = await search.entities({ ...q, limit: 5000, offset: 0 });
        const walked: string[] = [];
        let page = await search.entityWalk({ ...q, limit: 13, offset: 0 }, null);
        for (let pos = 0; ;) {
          walked.push(...page.hits.map((h) => h.document_number));
          pos += 13;
          if (pos >= page.total) break;
          const walk = { version: page.version, total: page.total, after: page.last };
          page = await search.entityWalk({ ...q, limit: 13, offset: pos }, walk);
        }
        assert.deepEqual(
          walked,
          all.hits.map((h) => h.document_number),
          JSON.stringify(q),
        );
      }
    }
  });
});

describe('a walk across a daily file', () => {
  it('reads on as the data was at its first page: nothing skipped, nothing repeated', async () => {
    const cityUrl = `/v1/entities/search?principal_city=${encodeURIComponent(city)}`;
    const walks = [
      { url: '/v1/entities/search?sort=name_asc', limit: 100 },
      { url: `${cityUrl}&sort=name_asc`, limit: 20 },
      { url: cityUrl, limit: 20 },
      { url: '/v1/entities/search?sort=date_oldest', limit: 100 },
      { url: '/v1/leads/new-businesses?date_from=2026-01-01', limit: 20 },
      { url: '/v1/filings/recent?days=30', limit: 20 },
    ];
    const before = new Map<string, string[]>();
    for (const w of walks) before.set(w.url, docs(await offsetWalk(w.url, w.limit)));

    // The file: entities the walks have not reached renamed to the front and moved out of the city, entities
    // they have read renamed to the end, and new entities in the city filed within the walks' dates.
    const byName = before.get(walks[0]!.url)!;
    const inCity = before.get(walks[2]!.url)!;
    const changes: Corp[] = [
      { doc: byName.at(-5)!, name: 'AAAA MOVED TO THE FRONT LLC', city, fileDate: '11202026' },
      { doc: byName[3]!, name: 'ZZZZ MOVED TO THE END LLC', city, fileDate: '11202026' },
      { doc: inCity.at(-3)!, name: 'LEFT THE CITY LLC', city: 'NOWHERE', fileDate: '01011990' },
      { doc: inCity[1]!, name: 'STAYED BUT OLDER LLC', city, fileDate: '01011985' },
      ...[1, 2, 3].map((i) => ({ doc: `L2600009990${i}`, name: `BRAND NEW ${i} LLC`, city, fileDate: '11212026' })),
    ];
    const apply = async (): Promise<void> => {
      const file = path.join(dir, '20261121c.txt');
      await writeFile(file, fileOf(changes.map(corporate)));
      const summary = await importFiles(t.db.pool, [file]);
      assert.equal(summary.totals.records_rejected, 0);
      assert.equal(summary.totals.files_imported, 1);
    };

    // Every walk reads two pages, the file is applied, and every walk reads on to its end.
    const started = walks.map((w) => new CursorWalk(w.url, w.limit));
    for (const w of started) for (let n = 0; n < 2; n++) await w.next();
    assert.ok(
      started.every((w) => !w.done),
      'every walk has pages left',
    );
    await apply();
    for (const [i, w] of started.entries()) {
      await w.finish();
      const url = walks[i]!.url;
      assert.deepEqual(docs(w.rows), before.get(url), `${url} across the file`);
      assert.deepEqual([...w.totals], [before.get(url)!.length], `${url}: its first total throughout`);
    }
    // The file did change every list: read afresh, each differs from what the walk returned.
    for (const w of walks)
      assert.notDeepEqual(docs(await offsetWalk(w.url, w.limit)), before.get(w.url), `${w.url} changed`);
  });
});

describe('cursors refused', () => {
  it('a cursor not ours, of another query, with an offset; an offset past the limit; a version gone', async () => {
    const url = '/v1/entities/search?sort=name_asc&limit=5';
    const first = await page(url);
    const cursor = first.pagination.next_cursor!;
    const refused = async (u: string, status: number, code: string, pattern: RegExp): Promise<void> => {
      const res = await t.get(u, key);
      assert.equal(res.statusCode, status, `${u}: ${res.body}`);
      const body = res.json() as { error: { code: string; message: string; details?: Record<string, string> } };
      assert.equal(body.error.code, code);
      assert.match(JSON.stringify(body.error), pattern);
    };
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify([...JSON.parse(Buffer.from(payload!, 'base64url').toString()).slice(0, 4), 99_999]),
    ).toString('base64url');
    await refused(`${url}&cursor=${forged}.${signature}`, 400, 'bad_request', /not a cursor of this service/);
    await refused(`${url}&cursor=nonsense`, 400, 'bad_request', /not a cursor of this service/);
    await refused(
      `/v1/entities/search?sort=name_desc&limit=5&cursor=${cursor}`,
      400,
      'bad_request',
      /belongs to another query/,
    );
    await refused(`/v1/officers/search?name=smith&cursor=${cursor}`, 400, 'bad_request', /belongs to another query/);
    await refused(`${url}&offset=5&cursor=${cursor}`, 400, 'bad_request', /must not be given with cursor/);
    await refused(`${url}&offset=10001`, 400, 'bad_request', /at most 10000: read further with cursor/);
    // Only limit may change within a walk.
    assert.equal((await page(`/v1/entities/search?sort=name_asc&limit=9&cursor=${cursor}`)).data.length, 9);
    await t.db.pool.query('UPDATE dataset_state SET version = version + 1, pinned_from = version + 1');
    try {
      await refused(`${url}&cursor=${cursor}`, 410, 'cursor_expired', /no longer kept.*without cursor/);
    } finally {
      await t.db.pool.query('UPDATE dataset_state SET version = version - 1, pinned_from = 0');
    }
  });
});
