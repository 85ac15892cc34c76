// The ways a relevance page is found (src/search/ranking/strategy.ts): ranking every match, and reading
// the ranked postings (ranking/postings.ts) or walking the trigram-count index with the similarity
// bound. On a generated registry, every query of every kind, first and later pages, must come out the same every way.
// Words in 25 rows count as frequent here, so the common words have postings, and words in 5 rows
// have counts of their own.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { after, before, describe, it } from 'node:test';
import { generateDataset } from '../src/sample/index.js';
import { importFiles } from '../src/registry/import/index.js';
import { dateWalkFilter } from '../src/search/entities/date-walk.js';
import { createSearch, type Search } from '../src/search/index.js';
import { nameKey, sortedWords, trigramCount } from '../src/text/normalize.js';
import { contenders } from '../src/search/ranking/trigram-walk.js';
import { countTerm } from '../src/search/words/counts.js';
import { expandWords } from '../src/search/words/expansion.js';
import { countsDisagree } from './support/counts.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { corporate, fileOf } from './support/records.js';

let db: TestDatabase;
let dir: string;
let whole: Search;
let walked: Search;
let between: Search;

before(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'walk-'));
  const generated = await generateDataset({
    entities: 3000,
    seed: 11,
    days: 2,
    endDate: '2026-11-20',
    outDir: dir,
    workers: 0,
  });
  await importFiles(
    db.pool,
    generated.files.map((f) => path.join(dir, f.name)),
    { frequentWord: 25, countedWord: 5 },
  );
  // The dataset's version, as the service reads it: cached totals end with each daily file imported here.
  const version = async (): Promise<number> =>
    (await db.pool.query<{ version: number }>('SELECT version FROM dataset_state')).rows[0]!.version;
  whole = createSearch(db.pool, version);
  walked = createSearch(db.pool, version, { rankWholeBelow: 0 });
  // Broad slices (frequent words hold 25 rows or more) whose filters leave fewer matches than this.
  between = createSearch(db.pool, version, { rankWholeBelow: 40 });
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** The pool as the search sees it, recording each statement's text in `statements`. */
function recordingPool(statements: string[]): pg.Pool {
  return new Proxy(db.pool, {
    get: (pool, prop) =>
      prop === 'query'
        ? (q: string | { text: string }, ...rest: unknown[]) => {
            statements.push(typeof q === 'string' ? q : q.text);
            return (pool.query as (...a: unknown[]) => unknown)(q, ...rest);
          }
        : Reflect.get(pool, prop, pool),
  });
}

/** Words and prefixes people type, drawn from the data: common and rare words, typos, 1-2 characters. */
async function entityQueries(): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>(
    'SELECT name FROM registry.entities ORDER BY document_number LIMIT 40',
  );
  const common = await db.pool.query<{ word: string }>(
    'SELECT word FROM registry.entity_words ORDER BY n DESC, word LIMIT 8',
  );
  // Names that are exactly a frequent word or one or two characters: exact-tier rows ahead of postings.
  const exactOfSlices = await db.pool.query<{ name: string }>(`
    SELECT name FROM registry.entities WHERE name_core IN (SELECT word FROM registry.entity_words WHERE frequent)
      OR length(name_core) <= 2
    ORDER BY document_number LIMIT 4`);
  assert.ok(exactOfSlices.rows.length > 0, 'some names are exactly a frequent word');
  const names = rows.map((r) => r.name);
  return [
    ...names.slice(0, 15),
    ...names.slice(15, 25).map((n) => n.split(' ')[0]!),
    ...names.slice(25, 35).map((n) => n.replace(/[AEIOU]/, 'X')),
    ...common.rows.map((r) => r.word),
    `${common.rows[0]!.word} ${common.rows[1]!.word}`,
    ...exactOfSlices.rows.map((r) => r.name),
    'A',
    'S',
    'SU',
    'GR',
    'HOLDIN',
  ];
}

describe('ranked postings', () => {
  it('hold every entity of each frequent word and prefix, as the entity now is, after daily changes', async () => {
    const { rows } = await db.pool.query<{ slice: string; postings: number; counted: number }>(`
      SELECT slice, coalesce(p.n, 0)::int AS postings, coalesce(c.n, 0)::int AS counted
      FROM (SELECT slice, count(*) AS n FROM registry.entity_postings GROUP BY slice) p
      FULL JOIN (SELECT slice, sum(n) AS n FROM registry.entity_counts
                 WHERE slice ~ '^p:' OR slice IN (SELECT 'w:' || word FROM registry.entity_words WHERE frequent)
                 GROUP BY slice) c USING (slice)`);
    assert.ok(
      rows.some((r) => r.slice.startsWith('w:')),
      'some words are frequent',
    );
    assert.deepEqual(
      rows.filter((r) => r.postings !== r.counted),
      [],
    );
    const wrong = (): Promise<{ rows: unknown[] }> =>
      db.pool.query(`
      SELECT p.* FROM registry.entity_postings p LEFT JOIN registry.entities e ON e.id = p.id
      WHERE e.id IS NULL OR p.document_number <> e.document_number OR p.filed <> coalesce(e.filing_date, '-infinity')
         OR p.sim <> similarity(e.name_core, substr(p.slice, 3))
         OR p.prefix <> (e.name_core LIKE substr(p.slice, 3) || '%')
         OR p.status <> e.status OR p.entity_type <> e.entity_type OR p.city IS DISTINCT FROM upper(e.principal_city)
         OR NOT (CASE WHEN p.slice LIKE 'w:%' THEN substr(p.slice, 3) = ANY(e.name_words)
            ELSE e.name_core LIKE substr(p.slice, 3) || '%' END)`);
    assert.deepEqual((await wrong()).rows, []);
    // The full load wrote them in the rank index's order (derived.ts, RANK_ORDER), so that the index
    // build found its input sorted; the postings of entities no daily file changed are where it put them.
    const outOfOrder = await db.pool.query(`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE heap <> rank)::int AS misplaced FROM (
        SELECT row_number() OVER (ORDER BY p.ctid) AS heap,
               row_number() OVER (ORDER BY p.slice, p.prefix DESC, p.sim DESC, p.filed DESC, p.document_number) AS rank
        FROM registry.entity_postings p JOIN registry.entities e ON e.id = p.id
        WHERE e.source_date = (SELECT snapshot_date FROM dataset_state)) x`);
    assert.ok(outOfOrder.rows[0].n > 5000, `${outOfOrder.rows[0].n} postings loaded`);
    assert.equal(outOfOrder.rows[0].misplaced, 0);
    // Frequent words and prefixes within each city, as the entities now are.
    const citiesAgree = async (): Promise<void> => {
      const cities = await db.pool.query(`
        WITH real AS (
          SELECT 'c:' || upper(e.principal_city) || '|' || k AS slice, count(DISTINCT e.id)::int AS n
          FROM registry.entities e CROSS JOIN LATERAL (
            SELECT 'w:' || w FROM unnest(e.name_words) w
              WHERE w IN (SELECT word FROM registry.entity_words WHERE frequent)
            UNION SELECT 'p:' || left(e.name_core, 1) WHERE e.name_core <> ''
            UNION SELECT 'p:' || left(e.name_core, 2) WHERE length(e.name_core) >= 2) AS x(k)
          WHERE e.principal_city IS NOT NULL GROUP BY 1),
        kept AS (SELECT slice, sum(n)::int AS n FROM registry.entity_counts
                 WHERE slice LIKE 'c:%|%' GROUP BY slice HAVING sum(n) <> 0)
        SELECT slice, real.n AS real, kept.n AS kept FROM real FULL JOIN kept USING (slice)
        WHERE real.n IS DISTINCT FROM kept.n`);
      assert.deepEqual(cities.rows, []);
    };
    await citiesAgree();
    const changed = await db.pool.query(
      `SELECT count(*)::int AS n FROM imports WHERE kind = 'daily_corporate' AND records_read > 0`,
    );
    assert.equal(changed.rows[0].n, 2);
  });
});

/**
 * A text's trigram count as pg_trgm gives it, as SQL: what the importer stores beside each name
 * (renames here set it too).
 */
const TRGM = (text: string): string => `coalesce(array_length(show_trgm(${text}), 1), 0)`;

describe('trigram counts', () => {
  it('are stored by the importer as pg_trgm counts them, after a full load and daily files', async () => {
    const { rows } = await db.pool.query<{ rows: number; wrong: number }>(`
      SELECT count(*)::int AS rows, count(*) FILTER (WHERE wrong)::int AS wrong FROM (
        SELECT name_trgm <> ${TRGM('name_core')} OR address_trgm <> ${TRGM('address_norm')} AS wrong
        FROM registry.entities
        UNION ALL SELECT name_trgm <> ${TRGM('name_norm')} FROM registry.officers) x`);
    assert.ok(rows[0]!.rows > 3000, `${rows[0]!.rows} rows`);
    assert.equal(rows[0]!.wrong, 0);
    const changed = await db.pool.query(
      `SELECT count(*)::int AS n FROM registry.entities WHERE source_date > (SELECT snapshot_date FROM dataset_state)`,
    );
    assert.ok(changed.rows[0].n > 0, 'daily files wrote some of them');
  });
});

describe('precomputed counts', () => {
  it('hold every entity by status, type and filing year in each slice, as the entities now are', async () => {
    assert.deepEqual(await countsDisagree(db.pool), []);
  });
});

describe('word indexes', () => {
  it('keep no pending list after a full load and daily files (every search would read it through)', async () => {
    const { rows } = await db.pool.query<{ relname: string; reloptions: string[] | null }>(`
      SELECT c.relname, c.reloptions FROM pg_class c JOIN pg_am a ON a.oid = c.relam
      WHERE a.amname = 'gin' AND c.relnamespace = 'registry'::regnamespace ORDER BY 1`);
    const words = [
      'agents_name_words_idx',
      'entities_address_words_idx',
      'entities_agent_words_idx',
      'entities_city_words_idx',
      'entities_name_words_idx',
      'officers_name_words_idx',
    ];
    assert.deepEqual(
      words.filter((w) => !rows.some((r) => r.relname === w)),
      [],
      'the word indexes are there',
    );
    assert.deepEqual(
      rows.filter((r) => !(r.reloptions ?? []).includes('fastupdate=off')).map((r) => r.relname),
      [],
    );
  });
});

describe('relevance pages: postings and walking agree with ranking every match', () => {
  it('entities, with and without filters, first and deep pages', async () => {
    const city = (
      await db.pool.query<{ c: string }>(
        'SELECT principal_city AS c FROM registry.entities GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1',
      )
    ).rows[0]!.c;
    for (const name of await entityQueries()) {
      const filters = [
        {},
        { status: ['active' as const] },
        { offset: 30 },
        { entity_type: ['FLAL'], offset: 5 },
        { principal_city: city },
        { filed_after: '2012-01-01', status: ['inactive' as const] },
        // Rows without a filing date pass no date filter.
        { filed_before: '2009-12-31', entity_type: ['DOMP', 'FLAL'] },
        { status: ['d' as const] },
      ];
      for (const extra of filters) {
        const q = { name, limit: 25, offset: 0, ...extra };
        const [a, b, c] = await Promise.all([whole.entities(q), walked.entities(q), between.entities(q)]);
        assert.deepEqual(
          b.hits.map((h) => h.document_number),
          a.hits.map((h) => h.document_number),
          `${name} ${JSON.stringify(extra)}`,
        );
        assert.deepEqual(
          c.hits.map((h) => h.document_number),
          a.hits.map((h) => h.document_number),
          `${name} ${JSON.stringify(extra)}`,
        );
        assert.equal(b.total, a.total);
        assert.equal(c.total, a.total, `${name} ${JSON.stringify(extra)}`);
      }
    }
  });

  it('capped as the matcher caps them: the exact total, a full page of matches, some walks stopped short', async () => {
    const version = async (): Promise<number> => 1;
    // A cap of 1 stops each walk at its first step's rows (the rows a page still needs, at least).
    const capped = createSearch(db.pool, version, { rankWholeBelow: 0, walkRowsCap: 1 });
    let cut = 0;
    for (const name of await entityQueries()) {
      const q = { name, limit: 25, offset: 0 };
      const [exact, all, walkedCapped] = await Promise.all([
        whole.entities(q),
        whole.entities({ ...q, limit: 500 }),
        capped.entities(q),
      ]);
      assert.equal(walkedCapped.total, exact.total, name);
      const docs = walkedCapped.hits.map((h) => h.document_number);
      // A match it answers is a match; past the rows the cap let it read, it answers no others.
      const matches = new Set(all.hits.map((h) => h.document_number));
      if (exact.total <= 500)
        assert.ok(
          docs.every((d) => matches.has(d)),
          name,
        );
      assert.equal(docs.length, Math.min(25, exact.total), name);
      if (docs.join() !== exact.hits.map((h) => h.document_number).join()) cut++;
    }
    assert.ok(cut > 0, 'some walk stopped at the cap');
  });

  it('totals of a frequent word or a prefix within a city, from the counts', async () => {
    const { rows } = await db.pool.query<{ w: string; c: string }>(`
      SELECT w, e.principal_city AS c FROM registry.entities e, unnest(e.name_words) w
      WHERE w IN (SELECT word FROM registry.entity_words WHERE frequent) AND e.principal_city IS NOT NULL
      GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 3`);
    assert.ok(rows.length > 0);
    for (const { w, c } of rows) {
      for (const [name, match] of [
        [w, `e.name_words && ARRAY[$1]`],
        [w.slice(0, 1), `e.name_core LIKE $1 || '%'`],
        [w.slice(0, 2), `e.name_core LIKE $1 || '%'`],
      ] as const) {
        const real = await db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM registry.entities e WHERE ${match} AND upper(e.principal_city) = upper($2)`,
          [name, c],
        );
        const page = await whole.entities({ name, principal_city: c.toLowerCase(), limit: 5, offset: 0 });
        assert.equal(page.total, real.rows[0]!.n, `${name} in ${c}`);
      }
    }
  });

  it('keys of words in a city (registry.city_words): the city upper-cased, a bar, each word in order', async () => {
    const { rows } = await db.pool.query<{ k: string[] }>(
      `SELECT registry.city_words(c, w) AS k FROM (VALUES ('Tampa', '{PEREZ,PALM,PEREZ}'::text[]), (NULL, '{SUN}'),
       ('Miami', '{}'), ('Miami', NULL), ('A|B', '{X,NULL}')) v(c, w)`,
    );
    assert.deepEqual(
      rows.map((r) => r.k),
      [['TAMPA|PEREZ', 'TAMPA|PALM', 'TAMPA|PEREZ'], ['|SUN'], [], [], ['A|B|X', null]],
    );
    // Every row's keys, against the same keys written by a query over the row's words.
    const { rows: differ } = await db.pool.query(`
      SELECT document_number FROM registry.entities
      WHERE registry.city_words(principal_city, name_words)
        IS DISTINCT FROM ARRAY(SELECT upper(coalesce(principal_city, '')) || '|' || w FROM unnest(name_words) w)`);
    assert.deepEqual(differ, []);
  });

  it('a word with a city: the page and total of the plain match, through the keys of words in cities', async () => {
    // A rare word in the largest city and a frequent word in a small city, each found through the index
    // of its expansions' keys in the city (entities_city_words_idx), not through the word's rows or the city's.
    const large = (
      await db.pool.query<{ c: string; n: number }>(
        `SELECT upper(principal_city) AS c, count(*)::int AS n FROM registry.entities WHERE principal_city IS NOT NULL
         GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`,
      )
    ).rows[0]!;
    const frequent = (
      await db.pool.query<{ w: string }>(
        'SELECT name_words[1] AS w FROM registry.entities GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1',
      )
    ).rows[0]!.w;
    // The smallest city with rows holding it first.
    const small = (
      await db.pool.query<{ c: string; n: number }>(
        `
      SELECT upper(principal_city) AS c, count(*)::int AS n FROM registry.entities
      WHERE principal_city IS NOT NULL GROUP BY 1
      HAVING bool_or(name_words[1] = $1) ORDER BY 2, 1 LIMIT 1`,
        [frequent],
      )
    ).rows[0]!;
    const rare = (
      await db.pool.query<{ w: string }>(
        `
      SELECT w FROM registry.entities e, unnest(e.name_words) w WHERE upper(e.principal_city) = $1 AND length(w) > 3
      GROUP BY 1 ORDER BY (SELECT n FROM registry.entity_words WHERE word = w), 1 LIMIT 1`,
        [large.c],
      )
    ).rows[0]!.w;
    const statements: string[] = [];
    const search = createSearch(recordingPool(statements), async () => 4);
    for (const [word, c] of [
      [rare, large],
      [frequent, small],
    ] as const) {
      const [term] = await expandWords(db.pool, 'entity_words', [word]);
      const { rows } = await db.pool.query<{ document_number: string; n: number }>(
        `
        SELECT e.document_number, count(*) OVER ()::int AS n FROM registry.entities e
        WHERE e.name_words && $1::text[] AND upper(e.principal_city) = $2
        ORDER BY (e.name_norm = $3) DESC, (e.name_core = $3) DESC, (e.name_core LIKE $3 || '%') DESC,
                 similarity(e.name_core, $3) DESC,
                 e.filing_date DESC NULLS LAST, e.document_number LIMIT 10`,
        [term!.expansions, c.c, word],
      );
      statements.length = 0;
      const page = await search.entities({ name: word, principal_city: c.c.toLowerCase(), limit: 10, offset: 0 });
      assert.deepEqual(
        page.hits.map((h) => h.document_number),
        rows.map((r) => r.document_number),
        `${word} in ${c.c}`,
      );
      assert.equal(page.total, rows[0]?.n ?? 0, `${word} in ${c.c}`);
      assert.ok(
        statements.some((t) =>
          /registry\.city_words\(e\.principal_city, e\.name_words\) && registry\.city_words\(/.test(t),
        ),
        `${word} in ${c.c}: through the keys`,
      );
    }
  });

  it('entities of a broad prefix with a filter its first postings mostly fail', async () => {
    // A prefix of many rows and a type holding few of them: the postings give up and the matches are ranked whole.
    const { rows } = await db.pool.query<{ p: string; t: string }>(`
      SELECT p, t FROM (
        SELECT left(name_core, 1) AS p, entity_type AS t, count(*) AS n,
          sum(count(*)) OVER (PARTITION BY left(name_core, 1)) AS slice
        FROM registry.entities WHERE name_core <> '' GROUP BY 1, 2) x
      WHERE n BETWEEN 5 AND 40 AND slice > 200 ORDER BY 1, 2 LIMIT 4`);
    assert.ok(rows.length > 0, 'the data has such prefixes');
    for (const r of rows) {
      const q = { name: r.p, entity_type: [r.t], limit: 25, offset: 0 };
      const [a, c] = await Promise.all([whole.entities(q), between.entities(q)]);
      assert.deepEqual(
        c.hits.map((h) => h.document_number),
        a.hits.map((h) => h.document_number),
        `${r.p} ${r.t}`,
      );
    }
  });

  it('entities without a filing date, read off the postings, pass no date filter', async () => {
    const daily = path.join(dir, '20261123c.txt');
    await writeFile(
      daily,
      fileOf([
        corporate({ doc: 'L26800000001', name: 'AZURE UNDATED TRUST', fileDate: '', status: 'I', type: 'TRUST' }),
      ]),
    );
    await importFiles(db.pool, [daily], { frequentWord: 25, countedWord: 5 });
    const undated = await db.pool.query(
      `SELECT 1 FROM registry.entities WHERE document_number = 'L26800000001' AND filing_date IS NULL`,
    );
    assert.equal(undated.rowCount, 1);
    const cases: Array<[Record<string, unknown>, string, boolean]> = [
      [{ filed_before: '2099-12-31' }, `e.filing_date <= '2099-12-31'`, false],
      [{ filed_after: '1900-01-01' }, `e.filing_date >= '1900-01-01'`, false],
      [{ status: ['inactive'], entity_type: ['TRUST'] }, `e.status = 'I' AND e.entity_type = 'TRUST'`, true],
    ];
    for (const [extra, condition, listed] of cases) {
      const q = { name: 'A', limit: 100, offset: 0, ...extra };
      const [a, b] = await Promise.all([whole.entities(q), walked.entities(q)]);
      const docs = b.hits.map((h) => h.document_number);
      assert.deepEqual(
        docs,
        a.hits.map((h) => h.document_number),
        JSON.stringify(extra),
      );
      assert.equal(docs.includes('L26800000001'), listed, JSON.stringify(extra));
      const real = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM registry.entities e WHERE e.name_core LIKE 'A%' AND ${condition}`,
      );
      assert.equal(b.total, real.rows[0]!.n, JSON.stringify(extra));
    }
  });

  it('officers, agents and addresses', async () => {
    const officers = await db.pool.query<{ name: string }>(
      'SELECT name FROM registry.officers ORDER BY document_number, slot LIMIT 15',
    );
    const agents = await db.pool.query<{ name: string }>('SELECT name FROM registry.agents ORDER BY id LIMIT 10');
    const streets = await db.pool.query<{ s: string }>(
      `SELECT principal_addr1 AS s FROM registry.entities WHERE principal_addr1 IS NOT NULL
       ORDER BY document_number LIMIT 10`,
    );
    const page = { limit: 20, offset: 0 };
    // Frequent officer words (first names, common surnames) are read in trigram order.
    const frequent = await db.pool.query<{ word: string }>(
      'SELECT word FROM registry.officer_words WHERE frequent ORDER BY n DESC, word LIMIT 6',
    );
    assert.ok(frequent.rows.length > 0, 'some officer words are frequent');
    for (const name of frequent.rows.map((r) => r.word)) {
      for (const extra of [{}, { offset: 15 }]) {
        const [a, b] = await Promise.all([
          whole.officers({ ...page, ...extra, name }),
          walked.officers({ ...page, ...extra, name }),
        ]);
        assert.deepEqual(b, a, `${name} ${JSON.stringify(extra)}`);
      }
    }
    for (const r of officers.rows) {
      for (const name of [r.name, r.name.split(/[ ,]+/)[0]!]) {
        const [a, b] = await Promise.all([whole.officers({ ...page, name }), walked.officers({ ...page, name })]);
        assert.deepEqual(b, a, name);
      }
    }
    for (const r of agents.rows) {
      const [a, b] = await Promise.all([
        whole.agents({ ...page, name: r.name }),
        walked.agents({ ...page, name: r.name }),
      ]);
      assert.deepEqual(b, a, r.name);
    }
    for (const r of streets.rows) {
      for (const query of [r.s, r.s.split(' ').slice(1).join(' ')]) {
        const [a, b] = await Promise.all([whole.addresses({ ...page, query }), walked.addresses({ ...page, query })]);
        assert.deepEqual(b, a, query);
      }
    }
  });

  it('agents of more matches than the rank-whole limit: ranked whole, never walked', async () => {
    // The commonest agent words, alone and with weak words around them (CORPORATION SERVICE COMPANY is SERVICE).
    const { rows } = await db.pool.query<{ word: string; n: number }>(
      'SELECT word, n FROM registry.agent_words ORDER BY n DESC, word LIMIT 3',
    );
    const statements: string[] = [];
    const version = async (): Promise<number> => 1;
    const recorded = createSearch(recordingPool(statements), version, { rankWholeBelow: 1 });
    for (const { word, n } of rows) {
      assert.ok(n > 1, `${word} is held by more agents than the limit`);
      for (const name of [word, `CORPORATION ${word} COMPANY`]) {
        statements.length = 0;
        const page = { limit: 2, offset: 0, name };
        const [a, b] = await Promise.all([whole.agents(page), recorded.agents(page)]);
        assert.deepEqual(b, a, name);
        assert.ok(b.total > 1, name);
        const walks = statements.filter((s) => s.includes('ORDER BY a.name_trgm'));
        assert.deepEqual(walks, [], `${name} walked`);
      }
    }
  });

  it('first words alone, some matches: exact tiers and the first-word index first, the rest ranked whole', async () => {
    const { rows } = await db.pool.query<{ word: string }>(
      `SELECT split_part(name_core, ' ', 1) AS word FROM registry.entities e
       JOIN registry.entity_words w
         ON w.word = split_part(e.name_core, ' ', 1) AND NOT w.frequent AND length(w.word) >= 4
       GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 24`,
    );
    let tried = 0;
    for (const { word } of rows) {
      const [term] = await expandWords(db.pool, 'entity_words', [word]);
      if (!term || term.expansions.length < 2) continue;
      tried++;
      // The word's matches (the dictionary's bound) are more than a fifth of the rank-whole limit.
      const tiered = createSearch(
        db.pool,
        async () => (await db.pool.query<{ version: number }>('SELECT version FROM dataset_state')).rows[0]!.version,
        { rankWholeBelow: term.rows },
      );
      const total = (await whole.entities({ name: word, limit: 1, offset: 0 })).total;
      for (let offset = 0; offset <= total; offset += 3) {
        const [a, b] = await Promise.all([
          whole.entities({ name: word, limit: 3, offset }),
          tiered.entities({ name: word, limit: 3, offset }),
        ]);
        assert.deepEqual(b, a, `${word} offset ${offset}`);
      }
    }
    assert.ok(tried >= 3, 'first words with several expansions');
  });

  it('first words with filters: totals added up from the counts, the first-word index read filtered', async () => {
    const statements: string[] = [];
    const recording = recordingPool(statements);
    const { rows } = await db.pool.query<{ word: string; t: string; y: number }>(
      `SELECT split_part(name_core, ' ', 1) AS word, mode() WITHIN GROUP (ORDER BY entity_type) AS t,
              percentile_disc(0.5) WITHIN GROUP (ORDER BY extract(year FROM filing_date)::int) AS y
       FROM registry.entities e
         JOIN registry.entity_words w
           ON w.word = split_part(e.name_core, ' ', 1) AND NOT w.frequent AND length(w.word) >= 4
       GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 16`,
    );
    let addedUp = 0;
    for (const { word, t, y } of rows) {
      const [term] = await expandWords(db.pool, 'entity_words', [word]);
      if (!term || term.counted.length === 0) continue;
      // The word's matches (the dictionary's bound) are more than a fifth of the rank-whole limit.
      const tiered = createSearch(recording, async () => 7, { rankWholeBelow: term.rows });
      const filters: Array<{
        status?: Array<'active' | 'inactive'>;
        entity_type?: string[];
        filed_after?: string;
        filed_before?: string;
      }> = [
        { status: ['active'] },
        { entity_type: [t] },
        { filed_after: `${y}-01-01` },
        { status: ['inactive'], filed_before: `${y}-12-31` },
      ];
      for (const extra of filters) {
        const total = (await whole.entities({ name: word, limit: 1, offset: 0, ...extra })).total;
        const recount: pg.QueryResult<{ n: number }> = await db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM registry.entities WHERE name_words && $1::text[]
           AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR entity_type = $3)
             AND ($4::date IS NULL OR filing_date >= $4) AND ($5::date IS NULL OR filing_date <= $5)`,
          [
            term.expansions,
            extra.status ? (extra.status[0] === 'active' ? 'A' : 'I') : null,
            extra.entity_type?.[0] ?? null,
            extra.filed_after ?? null,
            extra.filed_before ?? null,
          ],
        );
        assert.equal(total, recount.rows[0]!.n, `${word} ${JSON.stringify(extra)}`);
        for (let offset = 0; offset <= total; offset += 3) {
          statements.length = 0;
          const [a, b] = await Promise.all([
            whole.entities({ name: word, limit: 3, offset, ...extra }),
            tiered.entities({ name: word, limit: 3, offset, ...extra }),
          ]);
          assert.deepEqual(b, a, `${word} ${JSON.stringify(extra)} offset ${offset}`);
          // No statement counts its matches apart; the total is added up from the counts, unless the page
          // was ranked whole (the tiers read with the filters did not fill it) and counted by that statement.
          assert.deepEqual(
            statements.filter((s) => /count\(\*\)::bigint/.test(s)),
            [],
            `${word} ${JSON.stringify(extra)} offset ${offset}`,
          );
          if (offset === 0 && !statements.some((s) => /count\(\*\) OVER/.test(s))) {
            assert.ok(
              statements.some((s) => /registry\.entity_counts/.test(s)),
              `${word} ${JSON.stringify(extra)}: from the counts`,
            );
            addedUp++;
          }
        }
      }
    }
    assert.ok(addedUp >= 8, 'first words with counts of their own, with filters');
  });

  it('officer words alone, some matches: exact and prefix tiers first, the rest ranked whole', async () => {
    // A frequent word, a rarer one that is its own only expansion (both counted from the dictionary),
    // and one with several.
    const frequent = await db.pool.query<{ word: string; n: number }>(
      'SELECT word, n FROM registry.officer_words WHERE frequent AND length(word) >= 3 ORDER BY n DESC, word LIMIT 1',
    );
    const rare = await db.pool.query<{ word: string; n: number }>(
      `SELECT word, n FROM registry.officer_words WHERE NOT frequent AND n >= 8 AND length(word) >= 4
       ORDER BY n DESC, word LIMIT 40`,
    );
    const expanded = [];
    for (let i = 0; i < rare.rows.length; i += 8)
      expanded.push(
        ...(await expandWords(
          db.pool,
          'officer_words',
          rare.rows.slice(i, i + 8).map((r) => r.word),
        )),
      );
    const alone = expanded.find((t) => t.expansions.length === 1 && t.expansions[0] === t.word);
    const several = expanded.find((t) => t.expansions.length > 1);
    assert.ok(alone && several, 'rarer officer words, one its own only expansion, one with several');
    for (const { word, n } of [
      frequent.rows[0]!,
      { word: alone.word, n: alone.rows },
      { word: several.word, n: several.rows },
    ]) {
      // Its matches (at most the dictionary's bound n) are more than a fifth of the rank-whole limit.
      const tiered = createSearch(
        db.pool,
        async () => (await db.pool.query<{ version: number }>('SELECT version FROM dataset_state')).rows[0]!.version,
        { rankWholeBelow: n },
      );
      for (let offset = 0; offset <= n; offset += 5) {
        const [a, b] = await Promise.all([
          whole.officers({ name: word, limit: 5, offset }),
          tiered.officers({ name: word, limit: 5, offset }),
        ]);
        assert.deepEqual(b, a, `${word} offset ${offset}`);
      }
    }
    assert.equal((await whole.officers({ name: alone.word, limit: 1, offset: 0 })).total, alone.rows);
  });

  it('up to four times the rank-whole limit: walked if the exact tiers fill the page, else ranked whole', async () => {
    // Names of two words or more that several entities hold, and the same with a letter changed (no exact match).
    const { rows } = await db.pool.query<{ name: string }>(`
      SELECT min(name) AS name FROM registry.entities WHERE name_core LIKE '% %' AND name_core ~ '^[A-Z ]+$'
      GROUP BY name_core HAVING count(*) >= 2 ORDER BY count(*) DESC, name_core LIMIT 6`);
    assert.ok(rows.length >= 2, 'the data repeats some names');
    const statements: string[] = [];
    const recording = recordingPool(statements);
    const rankedWhole = (): boolean =>
      statements.some(
        (t) => /FROM registry\.entities e\s+WHERE[\s\S]*ORDER BY CASE WHEN/.test(t) && !/= ANY\(/.test(t),
      );
    let walkedSome = 0;
    for (const exact of rows.map((r) => r.name)) {
      for (const name of [exact, exact.replace(/[AEIOU](?=[A-Z]* )/, 'X')]) {
        const total = (await whole.entities({ name, limit: 1, offset: 0 })).total;
        if (total < 3) continue;
        const tiered = createSearch(recording, async () => 3, { rankWholeBelow: Math.ceil(total / 4) });
        statements.length = 0;
        const page = await tiered.entities({ name, limit: 2, offset: 0 });
        assert.deepEqual(page, await whole.entities({ name, limit: 2, offset: 0 }), name);
        const filled =
          (await db.pool.query('SELECT 1 FROM registry.entities WHERE name_core = $1', [nameKey(name).core])).rows
            .length >= 2;
        assert.equal(
          rankedWhole(),
          !filled,
          `${name}: ${total} matches, the exact tiers ${filled ? 'fill' : 'leave short'} the page`,
        );
        if (filled) walkedSome++;
      }
    }
    assert.ok(walkedSome >= 2, 'pages the exact tiers fill');
  });
});

describe('sorted listings: walking the sort index agrees with sorting every match', () => {
  it('by city, status, type and dates, first and later pages', async () => {
    const walking = createSearch(db.pool, async () => 1, { sortAllBelow: 0 });
    const { rows } = await db.pool.query<{ c: string; t: string }>(
      `SELECT principal_city AS c, entity_type AS t FROM registry.entities WHERE principal_city IS NOT NULL
       GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 3`,
    );
    assert.ok(rows.length > 0);
    for (const { c, t } of rows) {
      for (const sort of ['name_asc', 'name_desc', 'date_newest', 'date_oldest'] as const) {
        for (const extra of [
          {},
          { entity_type: [t] },
          { status: ['active' as const], offset: 7 },
          { filed_after: '2015-01-01' },
        ]) {
          const q = { principal_city: c.toLowerCase(), sort, limit: 15, offset: 0, ...extra };
          const [a, b] = await Promise.all([whole.entities(q), walking.entities(q)]);
          assert.ok(a.hits.length > 0, JSON.stringify(q));
          assert.deepEqual(b, a, JSON.stringify(q));
        }
      }
    }
  });
});

describe('sorted listings oldest first', () => {
  it('read the undated matches after every dated one, on pages that reach them', async () => {
    const { rows } = await db.pool.query<{ c: string; t: string }>(
      `SELECT principal_city AS c, entity_type AS t FROM registry.entities
       WHERE principal_city IS NOT NULL AND filing_date IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`,
    );
    const { c, t } = rows[0]!;
    const daily = path.join(dir, '20261122c.txt');
    const undated = ['L26810000004', 'L26810000002', 'L26810000003', 'L26810000001'];
    await writeFile(
      daily,
      fileOf(
        undated.map((doc, i) =>
          corporate({
            doc,
            name: `UNDATED OLDEST ${i} LLC`,
            fileDate: '',
            status: 'A',
            type: t,
            city: i < 3 ? c : 'NOWHERE',
          }),
        ),
      ),
    );
    await importFiles(db.pool, [daily], { frequentWord: 25, countedWord: 5 });
    const walking = createSearch(db.pool, async () => 1, { sortAllBelow: 0 });
    let reached = 0;
    for (const extra of [
      {},
      { entity_type: [t] },
      { status: ['active' as const] },
      { principal_city: c.toLowerCase() },
      { status: ['active' as const], entity_type: [t] },
    ]) {
      const { total } = await whole.entities({ sort: 'date_oldest', limit: 1, offset: 0, ...extra });
      // Straddling the last dated rows and the undated ones, within the undated ones, and past the end.
      for (const offset of [0, total - 6, total - 2, total + 1]) {
        const q = { sort: 'date_oldest' as const, limit: 5, offset, ...extra };
        const [a, b] = await Promise.all([whole.entities(q), walking.entities(q)]);
        assert.deepEqual(b, a, JSON.stringify(q));
        reached += b.hits.filter((h) => undated.includes(h.document_number)).length;
      }
      const last = await whole.entities({ sort: 'date_oldest', limit: 3, offset: total - 3, ...extra });
      // (A hit without a filing date shows its last transaction's date instead.)
      const lastDocs = last.hits.map((h) => h.document_number);
      const dated = await db.pool.query(
        'SELECT 1 FROM registry.entities WHERE document_number = ANY($1) AND filing_date IS NOT NULL',
        [lastDocs],
      );
      assert.equal(lastDocs.length, 3, JSON.stringify(extra));
      assert.equal(dated.rowCount, 0, JSON.stringify(extra));
    }
    assert.ok(reached >= 10, `pages reached ${reached} undated rows`);
  });
});

describe('sorted listings of one status and one type', () => {
  it('walk the date index of the filter that reads fewer rows before the page is full', () => {
    // Inactive LLCs: the oldest inactive entities are corporations, the oldest LLCs mostly inactive.
    const years = [
      { year: 1990, status: 1000, type: 20, both: 15 },
      { year: 2010, status: 500, type: 800, both: 300 },
      { year: 2025, status: 100, type: 5000, both: 50 },
      { year: -1, status: 9000, type: 10, both: 10 },
    ];
    assert.equal(dateWalkFilter(years, true, 25), 'entity_type'); // 1990 then 2010: about 47 rows against 1,017
    assert.equal(dateWalkFilter(years, false, 25), 'status'); // 2025 first: 50 rows against 2,500
    // Undated rows come last in either direction, and a page past every match reads everything.
    assert.equal(dateWalkFilter(years, false, 370), 'entity_type');
    assert.equal(dateWalkFilter(years, true, 1000), 'entity_type');
  });

  it('give the pages sorting every match gives, whichever index is walked', async () => {
    const walking = createSearch(db.pool, async () => 1, { sortAllBelow: 0 });
    const { rows } = await db.pool.query<{ t: string }>(
      'SELECT entity_type AS t FROM registry.entities GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 3',
    );
    for (const { t } of rows) {
      for (const sort of ['date_newest', 'date_oldest', undefined] as const) {
        for (const extra of [
          { status: ['active' as const] },
          { status: ['inactive' as const], offset: 7 },
          { status: ['inactive' as const], filed_after: '2015-01-01' },
          { status: ['active' as const], filed_before: '2010-12-31', offset: 3 },
        ]) {
          const q = { entity_type: [t], ...(sort ? { sort } : {}), limit: 15, offset: 0, ...extra };
          const [a, b] = await Promise.all([whole.entities(q), walking.entities(q)]);
          assert.ok(a.hits.length > 0, JSON.stringify(q));
          assert.deepEqual(b, a, JSON.stringify(q));
        }
      }
    }
  });
});

describe('totals', () => {
  it('of a few matches come from the statement that ranks them, with no count of their own', async () => {
    const statements: string[] = [];
    const recording = recordingPool(statements);
    const search = createSearch(recording, async () => 1);
    // Ranking whole below 40 matches: two words in more rows each (the dictionary's bound) but in
    // fewer together are ranked and counted by one statement that reads at most 41 matches.
    const capped = createSearch(recording, async () => 1, { rankWholeBelow: 40 });
    const { rows } = await db.pool.query<{ name: string }>(
      'SELECT name FROM registry.entities ORDER BY document_number LIMIT 5',
    );
    const pairs = await db.pool.query<{ a: string; b: string }>(`
      WITH w AS (SELECT word FROM registry.entity_words WHERE n BETWEEN 41 AND 800 AND word ~ '^[A-Z]{4,}$')
      SELECT a, b FROM registry.entities e, unnest(e.name_words) a, unnest(e.name_words) b
      WHERE a < b AND a IN (SELECT word FROM w) AND b IN (SELECT word FROM w)
      GROUP BY 1, 2 HAVING count(DISTINCT e.id) <= 40 ORDER BY count(DISTINCT e.id) DESC, 1, 2 LIMIT 20`);
    const twoWords = pairs.rows
      .map((p) => `${p.a} ${p.b}`)
      .filter((n) => nameKey(n).words.length === 2)
      .slice(0, 3);
    assert.ok(twoWords.length > 0, 'the data has such pairs');
    const cases = [
      ...rows.map(({ name }) => ({ name, search })),
      ...twoWords.map((name) => ({ name, search: capped })),
    ];
    for (const { name, search: s } of cases) {
      statements.length = 0;
      const page = await s.entities({ name, limit: 3, offset: 0 });
      assert.ok(page.hits.length > 0, name);
      assert.deepEqual(
        statements.filter((t) => /count\(\*\)::bigint/.test(t)),
        [],
        name,
      );
      // Every way to the total agrees: counted alone (a page past the end) and by the ranking walk.
      const [past, walkedPage] = await Promise.all([
        whole.entities({ name, limit: 3, offset: 100_000 }),
        walked.entities({ name, limit: 3, offset: 0 }),
      ]);
      assert.equal(page.total, past.total, name);
      assert.equal(page.total, walkedPage.total, name);
    }
    // One word past the rank-whole limit is counted from the dictionary's counts of its expansions, less
    // the rows holding two of them: a row holding that word and another expansion is counted once. Two entities from
    // a daily file hold a made-up one-edit neighbour of a common word, one of them beside the word.
    const { rows: topRows } = await db.pool.query<{ word: string }>(
      `SELECT word FROM registry.entity_words WHERE NOT frequent AND word ~ '^[A-Z]{5,7}$'
       ORDER BY n DESC, word LIMIT 1`,
    );
    const top = topRows[0]!.word;
    const neighbour = `${top.slice(0, -1)}${top.endsWith('Q') ? 'X' : 'Q'}`;
    // And a word with two expansions that have counts of their own, both in one new name.
    const candidates = await db.pool.query<{ word: string }>(
      `SELECT word FROM registry.entity_words WHERE counted AND NOT frequent AND word ~ '^[A-Z]{4,7}$' AND word <> $1
       ORDER BY n DESC, word LIMIT 60`,
      [top],
    );
    let both: [string, string] | undefined;
    for (const { word } of candidates.rows) {
      const other = (await expandWords(db.pool, 'entity_words', [word]))[0]!.counted.find(
        (w) => w !== word && /^[A-Z]+$/.test(w),
      );
      if (other) {
        both = [word, other];
        break;
      }
    }
    assert.ok(both, 'a word with two expansions that have counts');
    const daily = path.join(dir, '20261124c.txt');
    await writeFile(
      daily,
      fileOf([
        corporate({ doc: 'L26900000001', name: `${top} ${neighbour} LLC`, fileDate: '11232026' }),
        corporate({ doc: 'L26900000002', name: `${neighbour} GROUP LLC`, fileDate: '11232026' }),
        corporate({ doc: 'L26900000003', name: `${both[0]} ${both[1]} LLC`, fileDate: '11232026' }),
      ]),
    );
    await importFiles(db.pool, [daily], { frequentWord: 25, countedWord: 5 });
    const countedApart = createSearch(recording, async () => 2, { rankWholeBelow: 0 });
    statements.length = 0;
    const page = await countedApart.entities({ name: top, limit: 3, offset: 0 });
    const [term] = await expandWords(db.pool, 'entity_words', [top]);
    assert.ok(term!.expansions.includes(neighbour));
    const real = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM registry.entities WHERE name_words && $1::text[]',
      [term!.expansions],
    );
    assert.equal(page.total, real.rows[0]!.n);
    assert.ok(
      statements.some((t) => /INTERSECT/.test(t)),
      'the count leaves the words to the dictionary and reads the rows holding two',
    );
    // With a filter: added up from the counts of the two words, the new name holding both counted once.
    statements.length = 0;
    const filtered = await countedApart.entities({
      name: both[0],
      status: ['active'],
      filed_after: '2026-01-01',
      limit: 3,
      offset: 0,
    });
    const [pairTerm] = await expandWords(db.pool, 'entity_words', [both[0]]);
    const recount = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM registry.entities
       WHERE name_words && $1::text[] AND status = 'A' AND filing_date >= '2026-01-01'`,
      [pairTerm!.expansions],
    );
    assert.equal(filtered.total, recount.rows[0]!.n);
    assert.ok(filtered.hits.some((h) => h.document_number === 'L26900000003'));
    assert.ok(
      statements.some((t) => /registry\.entity_counts/.test(t) && /INTERSECT/.test(t)),
      'added up from the counts, less the rows holding two',
    );
    // Without filters, a term of more words than are paired (here: more than its counted words) is added up
    // the same way from the dictionary; with none paired, from its commonest word and a count of the others.
    const all = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM registry.entities WHERE name_words && $1::text[]',
      [pairTerm!.expansions],
    );
    assert.ok(pairTerm!.expansions.length > pairTerm!.counted.length, 'the term has words without counts of their own');
    for (const pairwiseMax of [pairTerm!.counted.length, 0]) {
      assert.equal(
        await countTerm(db.pool, 'registry.entities e', 'e.name_words', pairTerm!, pairwiseMax),
        all.rows[0]!.n,
        `pairing up to ${pairwiseMax} words`,
      );
    }
    // A name with no match at all (two words: too few for the relaxed match): total 0 from the ranking statement alone.
    statements.length = 0;
    const none = await capped.entities({ name: `${twoWords[0]!.split(' ')[0]} ZZQXJ`, limit: 3, offset: 0 });
    assert.equal(none.total, 0);
    assert.deepEqual(
      statements.filter((t) => /count\(\*\)::bigint/.test(t)),
      [],
    );
  });
});

describe('officer exact tier', () => {
  it('puts an officer named exactly a common word first, before one named it twice', async () => {
    const { rows } = await db.pool.query<{ word: string }>(
      `SELECT word FROM registry.officer_words WHERE frequent AND length(word) >= 3 AND word < 'Y'
       ORDER BY n DESC, word LIMIT 1`,
    );
    const word = rows[0]!.word;
    // Two officers renamed (the last test here: the data is not restored): one named W alone but
    // shown as ZZZZ, so that only its tier puts it before W W (same similarity, name sorts after).
    const two = await db.pool.query<{ document_number: string; slot: number }>(
      `SELECT document_number, slot FROM registry.officers WHERE NOT ($1 = ANY(name_words))
       ORDER BY document_number DESC, slot LIMIT 2`,
      [word],
    );
    const rename = (o: { document_number: string; slot: number }, shown: string, norm: string) =>
      db.pool.query(
        `UPDATE registry.officers SET name = $3, name_norm = $4, name_sorted = $4,
         name_words = ARRAY[$5], name_trgm = ${TRGM('$4')}
         WHERE document_number = $1 AND slot = $2`,
        [o.document_number, o.slot, shown, norm, word],
      );
    await rename(two.rows[0]!, 'ZZZZ', word);
    await rename(two.rows[1]!, `${word} ${word}`, `${word} ${word}`);
    for (const search of [whole, walked]) {
      const page = await search.officers({ name: word, limit: 20, offset: 0 });
      assert.deepEqual(
        page.hits.slice(0, 2).map((h) => h.officer_name),
        ['ZZZZ', `${word} ${word}`],
      );
    }
  });

  it('ranks in the prefix tier a name whose first word only begins with the word and holds it later', async () => {
    const { rows } = await db.pool.query<{ word: string; n: number }>(
      `SELECT word, n FROM registry.officer_words WHERE frequent AND length(word) >= 3 AND word < 'Y'
       ORDER BY n DESC, word LIMIT 1`,
    );
    const { word } = rows[0]!;
    // A short name (few trigrams) ranks early in the tier; the first word is not the word itself.
    const planted = `${word}Q ${word}`;
    await db.pool.query(
      `UPDATE registry.officers SET name = $1, name_norm = $1, name_sorted = $1,
       name_words = ARRAY[$2, $3], name_trgm = ${TRGM('$1')}
       WHERE (document_number, slot) = (SELECT document_number, slot FROM registry.officers
                                        WHERE NOT ($3 = ANY(name_words))
                                         ORDER BY document_number, slot LIMIT 1)`,
      [planted, `${word}Q`, word],
    );
    const seen: string[] = [];
    for (let offset = 0; offset < rows[0]!.n + 1; offset += 50) {
      const [a, b] = await Promise.all([
        whole.officers({ name: word, limit: 50, offset }),
        walked.officers({ name: word, limit: 50, offset }),
      ]);
      // Hits only: the renames here bypass the word counts a frequent word's total is read from.
      assert.deepEqual(b.hits, a.hits, `offset ${offset}`);
      seen.push(...b.hits.map((h) => h.officer_name));
    }
    assert.ok(seen.includes(planted), 'the planted name is among the matches');
  });

  it('counts a word of a few expansions exactly: the dictionary, less the rows holding two or three', async () => {
    const { rows: candidates } = await db.pool.query<{ word: string }>(
      `SELECT word FROM registry.officer_words WHERE NOT frequent AND length(word) >= 4
       ORDER BY n DESC, word LIMIT 200`,
    );
    const terms = [];
    for (let i = 0; i < candidates.length && terms.length < 5; i += 8) {
      const batch = await expandWords(
        db.pool,
        'officer_words',
        candidates.slice(i, i + 8).map((r) => r.word),
      );
      terms.push(...batch.filter((t) => t.expansions.length >= 3 && t.expansions.length <= 40));
    }
    assert.ok(terms.length > 0, 'some officer words expand to three to forty words');
    const [t] = terms;
    // Two officers made to hold three and two of the term's words, the dictionary moved with them.
    const planted = [t!.expansions.slice(0, 3), t!.expansions.slice(1, 3)];
    for (const [i, words] of planted.entries()) {
      const { rows } = await db.pool.query<{ name_words: string[] }>(
        `UPDATE registry.officers SET name_words = name_words || $1::text[]
         WHERE (document_number, slot) = (SELECT document_number, slot FROM registry.officers
                                          WHERE NOT (name_words && $2::text[])
                                           ORDER BY document_number DESC, slot OFFSET $3 LIMIT 1)
         RETURNING name_words`,
        [words, t!.expansions, i],
      );
      assert.equal(rows.length, 1);
      await db.pool.query('UPDATE registry.officer_words SET n = n + 1 WHERE word = ANY($1::text[])', [words]);
    }
    for (const word of [t!.word, ...terms.slice(1).map((x) => x.word)]) {
      const [term] = await expandWords(db.pool, 'officer_words', [word]);
      const direct = await db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM registry.officers o WHERE o.name_words && $1::text[]',
        [term!.expansions],
      );
      // By its pairs, and by the rows of all but its commonest word (as terms of many words are).
      assert.equal(await countTerm(db.pool, 'registry.officers o', 'o.name_words', term!), direct.rows[0]!.n, word);
      assert.equal(await countTerm(db.pool, 'registry.officers o', 'o.name_words', term!, 0), direct.rows[0]!.n, word);
    }
  });

  it("orders again only the rows a walk read that rank, by tier and similarity, with the page's last or above", () => {
    const row = (ref: number, tier: number, sim: number) => ({ ref, tier, sim, t: 0 });
    // 6 / 7 in double and as PostgreSQL prints the float4 (0.85714287): one similarity, a tie.
    const found = [
      row(1, 1, 0.9),
      row(2, 1, 6 / 7),
      row(3, 0, 0.2),
      row(4, 1, 0.85714287),
      row(5, 1, 0.3),
      row(6, 2, 1),
    ];
    assert.deepEqual(contenders(found, 3), [1, 2, 3, 4]);
    assert.deepEqual(contenders(found, 1), [3]);
    assert.deepEqual(contenders(found, 5), [1, 2, 3, 4, 5]);
    assert.deepEqual(contenders(found, 6), [1, 2, 3, 4, 5, 6]);
  });

  // Renames officers without moving the dictionary: last.
  it("walks past every row tied with the page's last, however PostgreSQL prints their similarity", async () => {
    const { rows: words } = await db.pool.query<{ word: string }>(
      `SELECT word FROM registry.officer_words WHERE frequent AND word ~ '^[A-Z]{3,}$' ORDER BY n DESC, word LIMIT 2`,
    );
    const query = words.map((w) => w.word).join(' ');
    // A third word for which similarity, a float4 printed shortest, reads above a / t in double.
    let name = '';
    for (const extra of ['QZ', 'QZX', 'QZXV', 'QZXVW', 'QZXVWK', 'QZXVWKJ', 'QZXVWKJY']) {
      const candidate = `${query} ${extra}`;
      const { rows } = await db.pool.query<{ sim: number }>('SELECT similarity($1, $2) AS sim', [candidate, query]);
      if (rows[0]!.sim > trigramCount(query) / trigramCount(candidate)) {
        name = candidate;
        break;
      }
    }
    assert.ok(name, 'a name whose similarity reads above a / t');
    // More such names than the walk's first read (64), renamed from the last document number down,
    // so that the index returns them in the reverse of their final order.
    const { rows: targets } = await db.pool.query<{ document_number: string; slot: number }>(
      `SELECT document_number, slot FROM registry.officers WHERE NOT (name_words && $1::text[])
       ORDER BY document_number DESC, slot DESC LIMIT 100`,
      [words.map((w) => w.word)],
    );
    for (const t of targets) {
      await db.pool.query(
        `UPDATE registry.officers SET name = $3, name_norm = $3, name_sorted = $4,
         name_words = $5, name_trgm = ${TRGM('$3')}
         WHERE document_number = $1 AND slot = $2`,
        [t.document_number, t.slot, name, sortedWords(name.split(' ')), name.split(' ')],
      );
    }
    for (const offset of [0, 30, 95]) {
      const [a, b] = await Promise.all([
        whole.officers({ name: query, limit: 5, offset }),
        walked.officers({ name: query, limit: 5, offset }),
      ]);
      assert.deepEqual(b.hits, a.hits, `${query} offset ${offset}`);
    }
  });
});
