// Tables derived from the loaded records: registered-agent groups, the word dictionaries used for
// fuzzy expansion, precomputed counts, and each entity's last inactivating event. Built whole after
// a snapshot load and moved by the difference after a set of changes.
import type pg from 'pg';
import { keysTable, type Dictionary } from '../dictionaries.js';
import { KNOWN_EVENT_CODES, inactivationOf } from '../codes.js';

export type Schema = 'registry' | 'registry_next';

/** A word in at least this many rows is frequent: it matches itself only, and has its own counts. */
export const FREQUENT_WORD = 20_000;

/**
 * A word of entity names in at least this many rows has counts of its own by status, type and filing
 * year, as a frequent word has (entity_counts 'w:WORD'): the total of a word with those filters is then
 * added up rather than counted on its matches (entities.ts, migration 035).
 */
export const COUNTED_WORD = 1_000;

/** The rows a word must be in to be frequent, and (entity words) to have counts of its own; set at each full load. */
export interface WordThresholds {
  readonly frequent: number;
  readonly counted: number;
}

export const WORD_THRESHOLDS: WordThresholds = { frequent: FREQUENT_WORD, counted: COUNTED_WORD };

/** Each dictionary: its table, the array column of which table it counts, and whether its words have counts of their own. */
const DICTIONARIES = [
  { table: 'entity_words', source: 'entities', column: 'name_words', counted: true },
  { table: 'address_words', source: 'entities', column: 'address_words', counted: false },
  { table: 'officer_words', source: 'officers', column: 'name_words', counted: false },
  { table: 'agent_words', source: 'agents', column: 'name_words', counted: false },
] as const;

/** Inserts the deletion keys (migration 038) of the words of `dictionary` that `words` selects (a query with a column `word`). */
const wordKeysSql = (s: Schema, dictionary: Dictionary, words: string): string =>
  `INSERT INTO ${s}.${keysTable(dictionary)} (key, word) SELECT k, word FROM (${words}) w, unnest(registry.word_keys(word)) AS k`;

type Source = (typeof DICTIONARIES)[number]['source'];

/** An entity row's agent spelling: the columns of `agent_spellings` but its count. */
const SPELLING = `agent_key, coalesce(agent_zip5, '') AS zip5, agent_name AS name, agent_city AS city, agent_state AS state, agent_words AS words`;

/**
 * The agent groups of the spellings `where` selects (see agent_spellings in migration 017). A group
 * shows its most frequent name, city and state, the first in sort order among equally frequent ones
 * (as mode() would over its entities); most groups have a single spelling, and only the others are
 * sorted for it. The sorted-name key is computed once per group. A group in `kept` keeps its id; the
 * others are numbered after the highest id of the table and of `kept`.
 */
function agentGroupsSql(s: Schema, where: string, kept: string): string {
  const spellings = `${s}.agent_spellings WHERE n > 0 ${where}`;
  const shown = (col: string): string => `
    SELECT DISTINCT ON (agent_key, zip5) agent_key, zip5, ${col} FROM (
      SELECT agent_key, zip5, ${col}, sum(n) AS n FROM several WHERE ${col} IS NOT NULL GROUP BY 1, 2, 3
    ) x ORDER BY agent_key, zip5, n DESC, ${col}`;
  const one = (col: string, alias: string): string =>
    `CASE WHEN g.spellings = 1 THEN g.${col} ELSE ${alias}.${col} END`;
  return `
    WITH g AS MATERIALIZED (
      SELECT agent_key, zip5, sum(n) AS entity_count, min(words) AS name_words, count(*) AS spellings,
             min(name) AS name, min(city) AS city, min(state) AS state
      FROM ${spellings} GROUP BY 1, 2),
    several AS MATERIALIZED (
      SELECT * FROM ${spellings} AND (agent_key, zip5) IN (SELECT agent_key, zip5 FROM g WHERE spellings > 1))
    INSERT INTO ${s}.agents (agent_key, zip5, name, city, state, entity_count, name_sorted, name_words, id)
    SELECT g.agent_key, g.zip5, ${one('name', 'nm')}, ${one('city', 'ct')}, ${one('state', 'st')}, g.entity_count,
           array_to_string(ARRAY(SELECT unnest(g.name_words) ORDER BY 1), ' '), g.name_words,
           -- New ids skip the numbers of kept rows: unique, and after every kept one.
           coalesce(k.id, greatest((SELECT max(id) FROM ${s}.agents), (SELECT max(id) FROM ${kept}), 0)
                          + row_number() OVER (ORDER BY g.agent_key, g.zip5))
    FROM g
    LEFT JOIN (${shown('name')}) nm USING (agent_key, zip5)
    LEFT JOIN (${shown('city')}) ct USING (agent_key, zip5)
    LEFT JOIN (${shown('state')}) st USING (agent_key, zip5)
    LEFT JOIN ${kept} k USING (agent_key, zip5)`;
}

/**
 * The count slices each entity row of `src` belongs to (see entity_counts in migration 010): all,
 * its city, the first one and two characters of its name; in `wordSlicesSql`, its words with counts of their own; in
 * `citySlicesSql`, those words and characters within its city.
 * One plain scan per slice kind: a lateral union per row costs many times more.
 */
function slicesSql(src: string): string {
  const year = 'coalesce(extract(year FROM filing_date)::int, -1) AS filing_year';
  return [
    `SELECT ''::text AS slice, status, entity_type, ${year} FROM ${src}`,
    `SELECT 'c:' || upper(principal_city), status, entity_type, ${year} FROM ${src} WHERE principal_city IS NOT NULL`,
    `SELECT 'p:' || left(name_core, 1), status, entity_type, ${year} FROM ${src} WHERE name_core <> ''`,
    `SELECT 'p:' || left(name_core, 2), status, entity_type, ${year} FROM ${src} WHERE length(name_core) >= 2`,
  ].join(' UNION ALL ');
}

/** The word slices of the entity rows of `src`: one per word with counts of its own (`which`: all of them, or those not frequent). */
function wordSlicesSql(s: Schema, src: string, which = 'counted'): string {
  return `
    SELECT 'w:' || w AS slice, e.status, e.entity_type, coalesce(extract(year FROM e.filing_date)::int, -1) AS filing_year
    FROM ${src} e CROSS JOIN LATERAL unnest(e.name_words) AS w
    WHERE w IN (SELECT word FROM ${s}.entity_words WHERE ${which})`;
}

/**
 * The count slices of a frequent word or a one- or two-character name prefix within a principal city
 * ('c:CITY|w:WORD', 'c:CITY|p:X'), counted without status, type or year ('', '', 0): such a total
 * with no other filter was counted by a bitmap over tens of thousands of rows (PROPERTIES in MIAMI:
 * 2.8 s at 12.6 million entities), and with status, type and year it would be millions of rows.
 */
function citySlicesSql(s: Schema, src: string): string {
  const city = `'c:' || upper(e.principal_city) || '|'`;
  return `
    SELECT ${city} || 'w:' || w, '', '', 0 FROM ${src} e CROSS JOIN LATERAL unnest(e.name_words) AS w
    WHERE e.principal_city IS NOT NULL AND w IN (SELECT word FROM ${s}.entity_words WHERE frequent)
    UNION ALL SELECT ${city} || 'p:' || left(e.name_core, 1), '', '', 0 FROM ${src} e WHERE e.principal_city IS NOT NULL AND e.name_core <> ''
    UNION ALL SELECT ${city} || 'p:' || left(e.name_core, 2), '', '', 0 FROM ${src} e WHERE e.principal_city IS NOT NULL AND length(e.name_core) >= 2`;
}

/**
 * The count slices of a full load, grouped in three scans where `allSlicesSql` takes eight: all and
 * each city from the entities, each frequent word and prefix, alone and within a city, from the
 * postings just built (one per row of such a slice, holding its status, type, date and city), and the
 * other words with counts of their own from the entities. Moves by difference go through
 * `allSlicesSql`; a test holds the two to the same rows.
 */
function loadCountsSql(s: Schema): string {
  const inCity = 'GROUPING(city) = 0';
  return `
    SELECT CASE WHEN ${inCity} THEN 'c:' || city ELSE '' END, status, entity_type, filing_year, count(*)
    FROM (SELECT upper(principal_city) AS city, status, entity_type,
                 coalesce(extract(year FROM filing_date)::int, -1) AS filing_year FROM ${s}.entities) e
    GROUP BY GROUPING SETS ((status, entity_type, filing_year), (city, status, entity_type, filing_year))
    HAVING NOT ${inCity} OR city IS NOT NULL
    UNION ALL
    SELECT CASE WHEN ${inCity} THEN 'c:' || city || '|' || slice ELSE slice END,
           CASE WHEN ${inCity} THEN '' ELSE status END, CASE WHEN ${inCity} THEN '' ELSE entity_type END,
           CASE WHEN ${inCity} THEN 0 ELSE filing_year END, count(*)
    FROM (SELECT slice, status, entity_type, city,
                 CASE WHEN filed = '-infinity' THEN -1 ELSE extract(year FROM filed)::int END AS filing_year
          FROM ${s}.entity_postings) p
    GROUP BY GROUPING SETS ((slice, status, entity_type, filing_year), (city, slice))
    HAVING NOT ${inCity} OR city IS NOT NULL
    UNION ALL
    SELECT slice, status, entity_type, filing_year, count(*) FROM (${wordSlicesSql(s, `${s}.entities`, 'counted AND NOT frequent')}) w
    GROUP BY 1, 2, 3, 4`;
}

/** Every count slice of the entity rows of `src`. */
const allSlicesSql = (s: Schema, src: string): string =>
  `${slicesSql(src)} UNION ALL ${wordSlicesSql(s, src)} UNION ALL ${citySlicesSql(s, src)}`;

/**
 * similarity(e.name_core, x) for a text x of whose `own` distinct trigrams `shared` are the name's,
 * as pg_trgm computes it (in float4): shared / (|T(name)| + own - shared), with |T(name)| stored as
 * name_trgm. Without taking the trigrams of both texts per row, at 12.6 million entities the word
 * postings took 17 s to compute instead of 50, the prefixes 19 instead of 34; the ranked-postings test
 * holds every posting to similarity() itself.
 */
const simOf = (shared: string, own: string): string => `(${shared})::real / (e.name_trgm + ${own} - (${shared}))::real`;

/**
 * The order of the rank index (migration 033) as one bigint, then the columns it cannot hold whole:
 * the slice as a number in the slices' own order (`code` below), the prefix tier, the similarity to
 * 20 bits and the filing day, each to be read from the highest bits down. A full load inserts the
 * postings in this order, and the index build finds its input sorted (PostgreSQL's sort checks for
 * that first): at 12.6 million entities the build took 36 s instead of 149, and sorting the rows
 * by this key about 30 s, where by the index's own columns it took 148 (docs/search.md, twenty-fifth session).
 */
const RANK_ORDER = `((p.code::bigint << 38) | ((NOT p.prefix)::int::bigint << 37)
    | ((1048575 - floor(p.sim::float8 * 1048575))::bigint << 17)
    | CASE WHEN p.filed = '-infinity' THEN 131071 ELSE 131070 - least(greatest(p.filed - date '1800-01-01', 0), 131070) END),
  p.sim DESC, p.filed DESC, p.document_number`;

/**
 * The ranked postings of the entity rows of `src` (see entity_postings in migrations 013, 023 and 033):
 * one per frequent word of the name, and one per one- and two-character prefix; `ranked`, in the
 * order of the rank index (RANK_ORDER). Names are words of A-Z and 0-9 (normalize.ts), each giving
 * pg_trgm the trigrams of "  WORD ". A word of the name has all its trigrams in the name's. Its first
 * character C has "  C" there, and " C " when C is a word of its own; its first two, CD, have "  C"
 * and " CD", and "CD " when a word ends in CD (when the second is a blank, they are C's). A slice's
 * code orders slices as their text does: prefixes by their characters' codes (all below 128), a
 * shorter prefix first, then the frequent words in order.
 */
function postingsSql(s: Schema, src: string, { ranked = false } = {}): string {
  const row = (slice: string, code: string, prefix: string, sim: string): string =>
    `${slice} AS slice, ${prefix} AS prefix, ${sim} AS sim, coalesce(e.filing_date, '-infinity') AS filed, e.document_number, e.id,
     e.status, e.entity_type, upper(e.principal_city) AS city${ranked ? `, ${code} AS code` : ''}`;
  const has = (haystack: string, needle: string): string => `(strpos(${haystack}, ${needle}) > 0)::int`;
  const firstIsWord = has(`' ' || e.name_core || ' '`, `' ' || left(e.name_core, 1) || ' '`);
  const oneLetterWord = `substr(e.name_core, 2, 1) = ' '`;
  const first = 'ascii(left(e.name_core, 1)) * 128';
  // The window keeps the subquery whole: pulled up into the join, show_trgm ran once per posting.
  const union = `
    SELECT ${row(`'w:' || w`, '16384 + f.rank', `e.name_core LIKE w || '%'`, simOf('f.trgm', 'f.trgm'))}
    FROM ${src} e CROSS JOIN LATERAL unnest(e.name_words) AS w
    JOIN (SELECT word, array_length(show_trgm(word), 1) AS trgm, row_number() OVER (ORDER BY word) AS rank
          FROM ${s}.entity_words WHERE frequent) f ON f.word = w
    UNION ALL SELECT ${row(`'p:' || left(e.name_core, 1)`, first, 'true', simOf(`1 + ${firstIsWord}`, '2'))}
    FROM ${src} e WHERE e.name_core <> ''
    UNION ALL SELECT ${row(
      `'p:' || left(e.name_core, 2)`,
      `${first} + ascii(substr(e.name_core, 2, 1)) + 1`,
      'true',
      `CASE WHEN ${oneLetterWord} THEN ${simOf('2', '2')} ELSE ${simOf(`2 + ${has(`e.name_core || ' '`, `left(e.name_core, 2) || ' '`)}`, '3')} END`,
    )}
    FROM ${src} e WHERE length(e.name_core) >= 2`;
  return ranked ? `SELECT ${POSTING_COLUMNS} FROM (${union}) p ORDER BY ${RANK_ORDER}` : union;
}

const POSTING_COLUMNS = 'slice, prefix, sim, filed, document_number, id, status, entity_type, city';

/** Inactivating event codes with their letters and labels, as query parameters. */
function inactivationParams(): [string[], string[], string[]] {
  const rows = KNOWN_EVENT_CODES.flatMap((code) => {
    const i = inactivationOf(code);
    return i ? [[code, i.letter, i.label] as const] : [];
  });
  return [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])];
}

function inactivationsSql(s: Schema, where: string): string {
  return `
    INSERT INTO ${s}.inactivations (document_number, letter, label, code, filed_date)
    SELECT DISTINCT ON (ev.document_number) ev.document_number, c.letter, c.label, ev.code, ev.filed_date
    FROM ${s}.events ev
    JOIN unnest($1::text[], $2::text[], $3::text[]) AS c(code, letter, label) ON c.code = ev.code
    WHERE true ${where}
    ORDER BY ev.document_number, ev.filed_date DESC NULLS LAST, ev.sequence DESC`;
}

/**
 * One derived table of a full load: the derived tables it reads (built before it), the copied table
 * whose rows it goes through (its size weighs the build when the load schedules it), and its build.
 */
export interface Derivation {
  readonly table: string;
  readonly after: readonly string[];
  readonly reads: 'entities' | 'officers' | 'events';
  build(client: pg.PoolClient): Promise<unknown>;
}

/** The corporate-derived tables of a freshly loaded schema, each built in its own statement. */
export function corporateDerivations(s: Schema, words = WORD_THRESHOLDS): Derivation[] {
  return [
    {
      table: 'agent_spellings',
      after: [],
      reads: 'entities',
      build: (c) =>
        c.query(`
          INSERT INTO ${s}.agent_spellings (agent_key, zip5, name, city, state, words, n)
          SELECT ${SPELLING}, count(*) FROM ${s}.entities WHERE agent_key IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`),
    },
    // The table is empty here: every group is new.
    {
      table: 'agents',
      after: ['agent_spellings'],
      reads: 'entities',
      build: (c) => c.query(agentGroupsSql(s, '', `${s}.agents`)),
    },
    ...DICTIONARIES.flatMap((d): Derivation[] => {
      const reads = d.source === 'officers' ? 'officers' : 'entities';
      return [
        {
          table: d.table,
          after: d.source === 'agents' ? ['agents'] : [],
          reads,
          build: (c) =>
            c.query(
              `INSERT INTO ${s}.${d.table} (word, n, frequent${d.counted ? ', counted' : ''})
               SELECT w, count(*), count(*) >= ${Number(words.frequent)}${d.counted ? `, count(*) >= least(${Number(words.frequent)}, ${Number(words.counted)})` : ''}
               FROM ${s}.${d.source}, unnest(${d.column}) AS w GROUP BY w`,
            ),
        },
        {
          table: keysTable(d.table),
          after: [d.table],
          reads,
          build: (c) => c.query(wordKeysSql(s, d.table, `SELECT word FROM ${s}.${d.table}`)),
        },
      ];
    }),
    {
      table: 'entity_counts',
      after: ['entity_words', 'entity_postings'],
      reads: 'entities',
      build: (c) =>
        c.query(`INSERT INTO ${s}.entity_counts (slice, status, entity_type, filing_year, n) ${loadCountsSql(s)}`),
    },
    {
      table: 'entity_day_counts',
      after: [],
      reads: 'entities',
      build: (c) =>
        c.query(`
          INSERT INTO ${s}.entity_day_counts (status, entity_type, filing_date, n)
          SELECT status, entity_type, filing_date, count(*) FROM ${s}.entities WHERE filing_date IS NOT NULL GROUP BY 1, 2, 3`),
    },
    {
      table: 'entity_postings',
      after: ['entity_words'],
      reads: 'entities',
      build: (c) =>
        c.query(
          `INSERT INTO ${s}.entity_postings (${POSTING_COLUMNS}) ${postingsSql(s, `${s}.entities`, { ranked: true })}`,
        ),
    },
  ];
}

export function eventDerivations(s: Schema): Derivation[] {
  return [
    {
      table: 'inactivations',
      after: [],
      reads: 'events',
      build: (c) => c.query(inactivationsSql(s, ''), inactivationParams()),
    },
  ];
}

/**
 * Before a change set replaces rows: keeps the rows it replaces (`old_entities`, `old_officers`),
 * so `refreshCorporateDerived` can move every derived count by the difference.
 */
export async function rememberCorporateDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(`
    CREATE TEMP TABLE old_entities ON COMMIT DROP AS
    SELECT e.* FROM ${s}.entities e JOIN chg_entities c ON c.document_number = e.document_number`);
  await client.query(`
    CREATE TEMP TABLE old_officers ON COMMIT DROP AS
    SELECT o.* FROM ${s}.officers o JOIN chg_entities c ON c.document_number = o.document_number`);
}

/**
 * Moves a dictionary's counts by the words of the rows leaving (`before`) and arriving (`after`); a
 * new word arrives with its deletion keys. The statement's parts share one snapshot, so the update
 * sees only the words that were there before.
 */
async function moveDictionary(
  client: pg.PoolClient,
  s: Schema,
  d: (typeof DICTIONARIES)[number],
  before: string,
  after: string,
): Promise<void> {
  await client.query(`
    WITH moves AS MATERIALIZED (
      SELECT w, sum(delta) AS delta FROM (
        SELECT w, 1 AS delta FROM ${after}, unnest(${d.column}) AS w
        UNION ALL SELECT w, -1 FROM ${before}, unnest(${d.column}) AS w
      ) m GROUP BY w HAVING sum(delta) <> 0),
    added AS (INSERT INTO ${s}.${d.table} (word, n) SELECT w, delta FROM moves ON CONFLICT (word) DO NOTHING RETURNING word),
    keyed AS (${wordKeysSql(s, d.table, 'SELECT word FROM added')})
    UPDATE ${s}.${d.table} dict SET n = dict.n + m.delta FROM moves m WHERE dict.word = m.w`);
}

/**
 * Moves the agent spellings by the rows leaving (`old_entities`) and arriving (`chg_entities`), then
 * reshows the groups they belong to from their spellings (ids kept). Leaves the groups' rows before
 * and after in `old_agents` and `new_agents`; returns how many groups more there are.
 */
async function refreshAgents(client: pg.PoolClient, s: Schema): Promise<number> {
  await client.query(`
    CREATE TEMP TABLE spelling_moves ON COMMIT DROP AS
    SELECT agent_key, zip5, name, city, state, words, sum(delta)::int AS delta FROM (
      SELECT ${SPELLING}, 1 AS delta FROM chg_entities WHERE agent_key IS NOT NULL
      UNION ALL SELECT ${SPELLING}, -1 FROM old_entities WHERE agent_key IS NOT NULL
    ) moves GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(delta) <> 0`);
  const same = `sp.agent_key = m.agent_key AND sp.zip5 = m.zip5 AND sp.name = m.name AND sp.city IS NOT DISTINCT FROM m.city
    AND sp.state IS NOT DISTINCT FROM m.state AND sp.words = m.words`;
  await client.query(`UPDATE ${s}.agent_spellings sp SET n = sp.n + m.delta FROM spelling_moves m WHERE ${same}`);
  await client.query(`
    INSERT INTO ${s}.agent_spellings (agent_key, zip5, name, city, state, words, n)
    SELECT * FROM spelling_moves m WHERE NOT EXISTS (SELECT 1 FROM ${s}.agent_spellings sp WHERE ${same})`);
  await client.query(`DELETE FROM ${s}.agent_spellings sp USING spelling_moves m WHERE ${same} AND sp.n = 0`);

  await client.query(`
    CREATE TEMP TABLE touched_agents ON COMMIT DROP AS SELECT DISTINCT agent_key, zip5 FROM spelling_moves`);
  await client.query(`
    CREATE TEMP TABLE old_agents ON COMMIT DROP AS
    SELECT a.* FROM ${s}.agents a JOIN touched_agents t ON a.agent_key = t.agent_key AND a.zip5 = t.zip5`);
  await client.query(
    `DELETE FROM ${s}.agents a USING touched_agents t WHERE a.agent_key = t.agent_key AND a.zip5 = t.zip5`,
  );
  await client.query(
    agentGroupsSql(s, `AND (agent_key, zip5) IN (SELECT agent_key, zip5 FROM touched_agents)`, 'old_agents'),
  );
  await client.query(`
    CREATE TEMP TABLE new_agents ON COMMIT DROP AS
    SELECT a.* FROM ${s}.agents a JOIN touched_agents t ON a.agent_key = t.agent_key AND a.zip5 = t.zip5`);
  const { rows } = await client.query<{ n: number }>(
    'SELECT (SELECT count(*) FROM new_agents) - (SELECT count(*) FROM old_agents) AS n',
  );
  return Number(rows[0]!.n);
}

/**
 * After a change set: reshows the agent groups it touched, and moves dictionaries and counts.
 * Returns how many agent groups more there are.
 */
export async function refreshCorporateDerived(client: pg.PoolClient, s: Schema): Promise<number> {
  const agents = await refreshAgents(client, s);

  const rows: Record<Source, [string, string]> = {
    entities: ['old_entities', 'chg_entities'],
    officers: ['old_officers', 'chg_officers'],
    agents: ['old_agents', 'new_agents'],
  };
  for (const d of DICTIONARIES) await moveDictionary(client, s, d, ...rows[d.source]);

  await client.query(`
    INSERT INTO ${s}.entity_counts AS c (slice, status, entity_type, filing_year, n)
    SELECT slice, status, entity_type, filing_year, sum(delta) FROM (
      SELECT *, 1 AS delta FROM (${allSlicesSql(s, 'chg_entities')}) a
      UNION ALL SELECT *, -1 FROM (${allSlicesSql(s, 'old_entities')}) b
    ) moves GROUP BY 1, 2, 3, 4 HAVING sum(delta) <> 0
    ON CONFLICT (slice, status, entity_type, filing_year) DO UPDATE SET n = c.n + excluded.n`);
  await client.query(`
    INSERT INTO ${s}.entity_day_counts AS c (status, entity_type, filing_date, n)
    SELECT status, entity_type, filing_date, sum(delta) FROM (
      SELECT status, entity_type, filing_date, 1 AS delta FROM chg_entities WHERE filing_date IS NOT NULL
      UNION ALL SELECT status, entity_type, filing_date, -1 FROM old_entities WHERE filing_date IS NOT NULL
    ) moves GROUP BY 1, 2, 3 HAVING sum(delta) <> 0
    ON CONFLICT (filing_date, status, entity_type) DO UPDATE SET n = c.n + excluded.n`);
  // Only a new name, filing date, status, type or city moves postings (most changes are of officers
  // or reports): they leave by their whole key (the rank index), and arrive as the rows now are.
  const moved = `(o.name_core, o.filing_date, o.status, o.entity_type, upper(o.principal_city))
    IS DISTINCT FROM (c.name_core, c.filing_date, c.status, c.entity_type, upper(c.principal_city))`;
  const leaving = `(SELECT o.* FROM old_entities o JOIN chg_entities c USING (document_number) WHERE ${moved})`;
  // Arriving rows as the entities table now holds them.
  const arriving = `(SELECT n.* FROM chg_entities c JOIN ${s}.entities n USING (document_number)
    LEFT JOIN old_entities o USING (document_number) WHERE o.document_number IS NULL OR ${moved})`;
  await client.query(`
    DELETE FROM ${s}.entity_postings p USING (${postingsSql(s, leaving)}) AS o(${POSTING_COLUMNS})
    WHERE (p.slice, p.prefix, p.sim, p.filed, p.document_number) = (o.slice, o.prefix, o.sim, o.filed, o.document_number)`);
  await client.query(`INSERT INTO ${s}.entity_postings (${POSTING_COLUMNS}) ${postingsSql(s, arriving)}`);
  return agents;
}

/** Recomputes the inactivation of every entity with a row in `chg_events`. */
export async function refreshEventDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(
    `DELETE FROM ${s}.inactivations WHERE document_number IN (SELECT document_number FROM chg_events)`,
  );
  await client.query(
    inactivationsSql(s, `AND ev.document_number IN (SELECT document_number FROM chg_events)`),
    inactivationParams(),
  );
}
