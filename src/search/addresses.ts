// Address search: one row per (principal address, entity). A ZIP5 or ZIP+4 is an equality match
// on the postal code, listed by address; anything else matches the normalized address (street and
// city) by words and ranks like names (src/search/ranking).
import type pg from 'pg';
import { addressKey, isStreetWord } from '../text/normalize.js';
import { addressesKey } from './cache-keys.js';
import type { SearchContext } from './context.js';
import type { Page, PageRequest } from './paging.js';
import type { RankedQuery } from './ranking/query.js';
import { rankedPage } from './ranking/strategy.js';
import type { AddressHit } from './shapes.js';
import { Sql } from './sql.js';
import { countRows, Total } from './totals/total.js';
import { countTerm } from './words/counts.js';
import { carries, expandWords, matchBound } from './words/expansion.js';
import { noneHoldsAll, wordsMatch } from './words/relaxed.js';

const ZIP = /^(\d{5})(?:-(\d{4}))?$/;
/** A query's house number: its first word, all digits, followed by the street. */
const HOUSE_NUMBER = /^(\d+) \S/;
const FROM = 'registry.entities e';
const COLUMN = 'e.address_words';

/** Whether some registered address begins with the query as typed (its words found through their index). */
async function beginsAnAddress(pool: pg.Pool, key: { norm: string; words: string[] }): Promise<boolean> {
  const { rows } = await pool.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${FROM} WHERE ${COLUMN} @> $1::text[] AND e.address_norm LIKE $2 || '%') AS found`,
    [key.words, key.norm],
  );
  return rows[0]!.found;
}

/**
 * Exact, then prefix; then, for a query that begins with a house number, the addresses of its street as typed (a
 * typo in the number: `495 W 42ND ST` for 995, before `495 242ND ST`, an expansion of 42ND), then those at its number
 * (a typo in the street: `7681 APLM ST`, where similarity alone ranked `681 PALM ST` and addresses whose city holds
 * PALM above the one meant, `7681 PALM ST UNIT 4`): docs/search.md, "Ranking".
 */
function addressTiers(norm: string): RankedQuery['tiers'] {
  const tiers: Array<(s: Sql) => string> = [
    (s) => `e.address_norm = ${s.p(norm)}`,
    (s) => `e.address_norm LIKE ${s.p(norm)} || '%'`,
  ];
  const number = HOUSE_NUMBER.exec(norm)?.[1];
  if (number === undefined) return tiers;
  const street = norm.slice(number.length + 1);
  // Each also as words the index finds, so that a walk reads the tier's few rows, not the matches' (187TH: 3 s).
  const named = street.split(' ').filter((w) => !isStreetWord(w));
  const streetWords = named.length > 0 ? named : street.split(' ');
  return [
    ...tiers,
    (s) =>
      `${COLUMN} @> ${s.p(streetWords)}::text[] AND ` +
      `substr(e.address_norm, strpos(e.address_norm, ' ') + 1) LIKE ${s.p(street)} || '%'`,
    (s) => `${COLUMN} @> ARRAY[${s.p(number)}]::text[] AND e.address_norm LIKE ${s.p(`${number} `)} || '%'`,
  ];
}

async function hits(pool: pg.Pool, ids: number[]): Promise<AddressHit[]> {
  if (ids.length === 0) return [];
  const { rows } = await pool.query<AddressHit>(
    `SELECT coalesce(nullif(concat_ws(', ', e.principal_addr1, e.principal_addr2), ''), '') AS address,
            coalesce(e.principal_city, '') AS city, coalesce(e.principal_state, 'FL') AS state,
            coalesce(e.principal_zip5, '') AS zip, e.document_number, e.name AS entity_name
     FROM unnest($1::int[]) WITH ORDINALITY AS u(id, pos) JOIN registry.entities e ON e.id = u.id ORDER BY u.pos`,
    [ids],
  );
  return rows;
}

export async function searchAddresses(
  pool: pg.Pool,
  ctx: SearchContext,
  q: PageRequest & { query: string },
): Promise<Page<AddressHit>> {
  const sql = new Sql();
  const zip = ZIP.exec(q.query.trim());
  const key = addressKey(q.query);
  // The start of a registered address as typed: its numbers and short words mean themselves (a number's typos are
  // dozens of words, some in 600,000 addresses). Else relaxed when no address holds every word (docs/search.md).
  const typed = !zip && key.words.some((w) => !carries(w)) && (await beginsAnAddress(pool, key));
  const terms = zip ? [] : await expandWords(pool, 'address_words', key.words, { shortAsTyped: typed });
  const relaxed = !typed && (await noneHoldsAll(pool, FROM, COLUMN, terms));
  const where = zip
    ? `e.principal_zip5 = ${sql.p(zip[1])}${zip[2] ? ` AND e.principal_zip4 = ${sql.p(zip[2])}` : ''}`
    : wordsMatch(relaxed)(sql, 'e.address_words', terms);
  const params = [...sql.params];
  const cacheKey = addressesKey(ctx.version, zip ? zip[0] : null, terms);
  const fromDictionary = terms.length === 1 && terms[0]!.frequent;
  const counted = new Total(
    ctx.counts,
    cacheKey,
    async () => {
      // One word (a frequent one is its own only expansion: the dictionary's count, no statement).
      if (terms.length === 1) return countTerm(pool, 'registry.entities e', 'e.address_words', terms[0]!);
      return countRows(pool, 'registry.entities e', where, params);
    },
    fromDictionary,
  );
  if (zip) {
    const [total, { rows }] = await Promise.all([
      counted.get(),
      pool.query<{ id: number }>(
        `SELECT e.id FROM registry.entities e WHERE ${where}
         ORDER BY e.address_norm ASC NULLS LAST, e.document_number ASC
         OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
        [...params, q.offset, q.limit],
      ),
    ]);
    return {
      hits: await hits(
        pool,
        rows.map((x) => x.id),
      ),
      total,
    };
  }
  const ids = await rankedPage(
    pool,
    ctx,
    {
      from: 'registry.entities e',
      ref: 'e.id',
      where,
      tiers: addressTiers(key.norm),
      exactTiers: 1,
      text: 'e.address_norm',
      trgm: 'e.address_trgm',
      query: key.norm,
      tiebreak: 'e.address_norm ASC, e.document_number ASC',
      sql,
    },
    q.offset,
    q.limit,
    { ...matchBound(terms, false, relaxed), total: counted },
  );
  const [found, total] = await Promise.all([hits(pool, ids), counted.get()]);
  return { hits: found, total };
}
