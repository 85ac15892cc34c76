// Ranked postings (registry.entity_postings): for each frequent name word and each one- and
// two-character name prefix, its entities in rank order, so a broad query's page is an index range read.
import type pg from 'pg';
import type { Derivation, Schema } from './derivation.js';

/**
 * similarity(e.name_core, x) for a text x of whose `own` distinct trigrams `shared` are the name's,
 * as pg_trgm computes it (in float4): shared / (|T(name)| + own - shared), with |T(name)| stored as
 * name_trgm. Without taking the trigrams of both texts per row, at 12.6 million entities the word
 * postings took 17 s to compute instead of 50, the prefixes 19 instead of 34; the ranked-postings test
 * holds every posting to similarity() itself.
 */
const simOf = (shared: string, own: string): string => `(${shared})::real / (e.name_trgm + ${own} - (${shared}))::real`;

/**
 * The order of the rank index (entity_postings_rank_idx) as one bigint, then the columns it cannot hold
 * whole: the slice as a number in the slices' own order (`code` below), the prefix tier, the similarity
 * to 20 bits and the filing day, each to be read from the highest bits down. A full load inserts the
 * postings in this order, and the index build finds its input sorted (PostgreSQL's sort checks for
 * that first): at 12.6 million entities the build took 36 s instead of 149, and sorting the rows
 * by this key about 30 s, where by the index's own columns it took 148 (docs/search.md).
 */
const RANK_ORDER = `((p.code::bigint << 38) | ((NOT p.prefix)::int::bigint << 37)
    | ((1048575 - floor(p.sim::float8 * 1048575))::bigint << 17)
    | CASE WHEN p.filed = '-infinity' THEN 131071
           ELSE 131070 - least(greatest(p.filed - date '1800-01-01', 0), 131070) END),
  p.sim DESC, p.filed DESC, p.document_number`;

const POSTING_COLUMNS = 'slice, prefix, sim, filed, document_number, id, status, entity_type, city';

/**
 * The ranked postings of the entity rows of `src` (see registry.entity_postings):
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
    `${slice} AS slice, ${prefix} AS prefix, ${sim} AS sim, coalesce(e.filing_date, '-infinity') AS filed,
     e.document_number, e.id,
     e.status, e.entity_type, upper(e.principal_city) AS city${ranked ? `, ${code} AS code` : ''}`;
  const has = (haystack: string, needle: string): string => `(strpos(${haystack}, ${needle}) > 0)::int`;
  const firstIsWord = has(`' ' || e.name_core || ' '`, `' ' || left(e.name_core, 1) || ' '`);
  const oneLetterWord = `substr(e.name_core, 2, 1) = ' '`;
  const secondEndsWord = has(`e.name_core || ' '`, `left(e.name_core, 2) || ' '`);
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
      `CASE WHEN ${oneLetterWord} THEN ${simOf('2', '2')} ELSE ${simOf(`2 + ${secondEndsWord}`, '3')} END`,
    )}
    FROM ${src} e WHERE length(e.name_core) >= 2`;
  return ranked ? `SELECT ${POSTING_COLUMNS} FROM (${union}) p ORDER BY ${RANK_ORDER}` : union;
}

/** The postings of a freshly loaded schema, in rank order, once the entity dictionary says which words are frequent. */
export function postingDerivations(s: Schema): Derivation[] {
  return [
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

/**
 * After a change set: only a new name, filing date, status, type or city moves postings (most changes
 * are of officers or reports): they leave by their whole key (the rank index), and arrive as the rows
 * now are.
 */
export async function movePostings(client: pg.PoolClient, s: Schema): Promise<void> {
  const moved = `(o.name_core, o.filing_date, o.status, o.entity_type, upper(o.principal_city))
    IS DISTINCT FROM (c.name_core, c.filing_date, c.status, c.entity_type, upper(c.principal_city))`;
  const leaving = `(SELECT o.* FROM old_entities o JOIN chg_entities c USING (document_number) WHERE ${moved})`;
  // Arriving rows as the entities table now holds them.
  const arriving = `(SELECT n.* FROM chg_entities c JOIN ${s}.entities n USING (document_number)
    LEFT JOIN old_entities o USING (document_number) WHERE o.document_number IS NULL OR ${moved})`;
  await client.query(`
    DELETE FROM ${s}.entity_postings p USING (${postingsSql(s, leaving)}) AS o(${POSTING_COLUMNS})
    WHERE (p.slice, p.prefix, p.sim, p.filed, p.document_number)
        = (o.slice, o.prefix, o.sim, o.filed, o.document_number)`);
  await client.query(`INSERT INTO ${s}.entity_postings (${POSTING_COLUMNS}) ${postingsSql(s, arriving)}`);
}
