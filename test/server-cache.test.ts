// The prewarm after a full load (relations read in order while they fit the budget, the rest named),
// the advice to put the server's shared memory on huge pages, and a new embedded cluster's locale.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { projectRoot } from '../src/config/paths.js';
import { startEmbedded } from '../src/db/embedded.js';
import { prewarm } from '../src/db/prewarm.js';
import { HUGE_PAGES_ADVISED_FROM_ENTITIES, hugePagesAdvice, hugePagesLine } from '../src/db/tuning.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
before(async () => {
  db = await testDatabase();
});
after(() => db.close());

const size = async (rel: string): Promise<number> =>
  Number(
    (await db.pool.query<{ n: string }>(`SELECT pg_relation_size($1::regclass) AS n`, [`registry.${rel}`])).rows[0]!.n,
  );

describe('prewarm', () => {
  it('reads the relations that fit the budget, in order, skips the rest and ignores missing names', async () => {
    const [pkey, words] = [await size('entities_pkey'), await size('entity_words_pkey')];
    assert.ok(pkey > 0 && words > 0);
    const all = await prewarm(
      db.pool,
      'registry',
      ['entities_pkey', 'no_such_relation', 'entity_words_pkey'],
      pkey + words,
    );
    assert.deepEqual(all, { relations: 2, bytes: pkey + words, skipped: [] });
    const one = await prewarm(db.pool, 'registry', ['entities_pkey', 'entity_words_pkey'], pkey + words - 1);
    assert.deepEqual(one, { relations: 1, bytes: pkey, skipped: ['entity_words_pkey'] });
  });

  it('sizes its budget from the server when given none', async () => {
    const r = await prewarm(db.pool, 'registry', ['entities_pkey']);
    assert.deepEqual(r, { relations: 1, bytes: await size('entities_pkey'), skipped: [] });
  });
});

describe('huge pages advice', () => {
  it('names the pages to reserve only when the server says its shared memory is on 4 KB pages', async () => {
    assert.match(hugePagesLine('off', '3111')!, /sysctl -w vm\.nr_hugepages=3111\b/);
    assert.equal(hugePagesLine('on', '3111'), null);
    assert.equal(hugePagesLine(null, '3111'), null); // PostgreSQL 15 and 16 do not say
  });

  it('is given only for a dataset large enough to need it', async () => {
    const { rows } = await db.pool.query<{ status: string | null; pages: string | null }>(
      `SELECT current_setting('huge_pages_status', true) AS status,
              current_setting('shared_memory_size_in_huge_pages', true) AS pages`,
    );
    const line = hugePagesLine(rows[0]!.status, rows[0]!.pages);
    const withEntities = async (n: number): Promise<string | null> => {
      await db.pool.query('UPDATE dataset_state SET entities = $1', [n]);
      return hugePagesAdvice(db.pool);
    };
    try {
      assert.equal(await withEntities(25_000), null);
      assert.equal(await withEntities(HUGE_PAGES_ADVISED_FROM_ENTITIES - 1), null);
      assert.equal(await withEntities(HUGE_PAGES_ADVISED_FROM_ENTITIES), line);
    } finally {
      await db.pool.query('UPDATE dataset_state SET entities = NULL');
    }
  });
});

describe('a new embedded cluster', () => {
  it('compares text by bytes and keeps Unicode case mapping', async () => {
    const dir = path.join(projectRoot, '.data', `locale-${randomBytes(4).toString('hex')}`);
    const server = await startEmbedded(dir, { port: 0, settings: ['shared_buffers=16MB', 'huge_pages=off'] });
    const client = new pg.Client({ connectionString: server.url });
    try {
      await client.connect();
      const { rows } = await client.query<{ datcollate: string; datctype: string }>(
        'SELECT datcollate, datctype FROM pg_database WHERE datname = current_database()',
      );
      assert.deepEqual(rows[0], { datcollate: 'C', datctype: 'C.UTF-8' });
      const words = ['b', 'B', 'a', 'É', '~', '0', 'Z', 'é'];
      const sorted = await client.query<{ w: string }>('SELECT w FROM unnest($1::text[]) AS w ORDER BY w', [words]);
      assert.deepEqual(
        sorted.rows.map((r) => r.w),
        [...words].sort(),
      ); // code point order
      assert.equal((await client.query<{ u: string }>(`SELECT upper('émile') AS u`)).rows[0]!.u, 'ÉMILE');
    } finally {
      await client.end();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
