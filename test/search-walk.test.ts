// The two ways a relevance page is found (ranked.ts): ranking every match, and walking the
// trigram-count index with the similarity bound. On a generated registry, every query of every kind,
// first and later pages, must come out the same both ways.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateDataset } from '../src/registry/generator/index.js';
import { importFiles } from '../src/registry/import/index.js';
import { createSearch, type Search } from '../src/search/index.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
let dir: string;
let whole: Search;
let walked: Search;

before(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'walk-'));
  await generateDataset({ entities: 3000, seed: 11, days: 2, endDate: '2026-11-20', outDir: dir, workers: 0 });
  await importFiles(db.pool, [path.join(dir, 'cordata.zip'), path.join(dir, 'corevent.zip')]);
  whole = createSearch(db.pool, async () => 1);
  walked = createSearch(db.pool, async () => 1, { rankWholeBelow: 0 });
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** Words and prefixes people type, drawn from the data: common and rare words, typos, 1-2 characters. */
async function entityQueries(): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM registry.entities ORDER BY document_number LIMIT 40');
  const common = await db.pool.query<{ word: string }>('SELECT word FROM registry.entity_words ORDER BY n DESC, word LIMIT 8');
  const names = rows.map((r) => r.name);
  return [
    ...names.slice(0, 15),
    ...names.slice(15, 25).map((n) => n.split(' ')[0]!),
    ...names.slice(25, 35).map((n) => n.replace(/[AEIOU]/, 'X')),
    ...common.rows.map((r) => r.word),
    `${common.rows[0]!.word} ${common.rows[1]!.word}`,
    'A', 'S', 'SU', 'GR', 'HOLDIN',
  ];
}

describe('relevance pages: walking agrees with ranking every match', () => {
  it('entities, with and without filters, first and deep pages', async () => {
    for (const name of await entityQueries()) {
      for (const extra of [{}, { status: ['active' as const] }, { offset: 30 }]) {
        const q = { name, limit: 25, offset: 0, ...extra };
        const [a, b] = await Promise.all([whole.entities(q), walked.entities(q)]);
        assert.deepEqual(b.hits.map((h) => h.document_number), a.hits.map((h) => h.document_number), `${name} ${JSON.stringify(extra)}`);
        assert.equal(b.total, a.total);
      }
    }
  });

  it('officers, agents and addresses', async () => {
    const officers = await db.pool.query<{ name: string }>('SELECT name FROM registry.officers ORDER BY document_number, slot LIMIT 15');
    const agents = await db.pool.query<{ name: string }>('SELECT name FROM registry.agents ORDER BY id LIMIT 10');
    const streets = await db.pool.query<{ s: string }>(`SELECT principal_addr1 AS s FROM registry.entities WHERE principal_addr1 IS NOT NULL ORDER BY document_number LIMIT 10`);
    const page = { limit: 20, offset: 0 };
    for (const r of officers.rows) {
      for (const name of [r.name, r.name.split(/[ ,]+/)[0]!]) {
        const [a, b] = await Promise.all([whole.officers({ ...page, name }), walked.officers({ ...page, name })]);
        assert.deepEqual(b, a, name);
      }
    }
    for (const r of agents.rows) {
      const [a, b] = await Promise.all([whole.agents({ ...page, name: r.name }), walked.agents({ ...page, name: r.name })]);
      assert.deepEqual(b, a, r.name);
    }
    for (const r of streets.rows) {
      for (const query of [r.s, r.s.split(' ').slice(1).join(' ')]) {
        const [a, b] = await Promise.all([whole.addresses({ ...page, query }), walked.addresses({ ...page, query })]);
        assert.deepEqual(b, a, query);
      }
    }
  });
});
