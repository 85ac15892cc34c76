// Entity search: name (fuzzy; ranked exact, then prefix, then trigram similarity), filters, sorts,
// exact total and facets, all from one predicate. See docs/search.md for how it stays fast at
// 12.6 million entities.
import type pg from 'pg';
import { countRows, countSlice, countsSum, splitYears, Total, type SliceCount } from './counts.js';
import { legalForm, nameKey, personKey } from '../registry/normalize.js';
import type { Page } from './paging.js';
import { agentWords } from './people.js';
import { firstWordTier, rankedPage, type FirstWordIndex, type MatchSize, type RankedQuery } from './ranked.js';
import type { SearchContext } from './context.js';
import { Sql } from './sql.js';
import { addedUpSql, addsUp, countTerm, expandWords, matchBound, termsMatch, type Term } from './terms.js';

export const STATUS_VALUES = ['active', 'inactive', 'a', 'i', 'd', 'r', 'w', 'm', 'n', 'p', 'x'] as const;
export const SORTS = ['relevance', 'name_asc', 'name_desc', 'date_newest', 'date_oldest'] as const;
export const FACETS = [
  'status',
  'entity_type',
  'principal_city',
  'principal_state',
  'filing_year',
  'state_of_formation',
] as const;

export type StatusValue = (typeof STATUS_VALUES)[number];
export type Facet = (typeof FACETS)[number];

export interface EntitySearch {
  name?: string;
  status?: StatusValue[];
  entity_type?: string[];
  state?: string;
  principal_city?: string;
  principal_state?: string;
  filed_after?: string;
  filed_before?: string;
  doc_number_prefix?: string;
  officer_name?: string;
  ra_name?: string;
  sort?: (typeof SORTS)[number];
  limit: number;
  offset: number;
  facets?: Facet[];
}

export interface EntityHit {
  document_number: string;
  entity_name: string;
  status: string;
  entity_type: string;
  filing_date: string;
  principal_address_street: string | null;
  principal_city: string;
  principal_state: string;
  principal_zip: string;
  registered_agent_name: string | null;
}

export interface EntityPage extends Page<EntityHit> {
  facets?: Record<string, Array<{ value: string; count: number }>>;
}

/**
 * The hit's columns, from a row `r` of entities. Blank principal states are Florida's; an entity
 * without a file date shows its last transaction date (or the date its record arrived).
 */
export const entityHitColumns = (r: string): string => `
  ${r}.document_number, ${r}.name AS entity_name,
  CASE ${r}.status WHEN 'A' THEN 'active' WHEN 'I' THEN 'inactive' ELSE lower(${r}.status) END AS status,
  ${r}.entity_type, coalesce(${r}.filing_date, ${r}.last_transaction_date, ${r}.source_date)::text AS filing_date,
  nullif(concat_ws(', ', ${r}.principal_addr1, ${r}.principal_addr2), '') AS principal_address_street,
  coalesce(${r}.principal_city, '') AS principal_city,
  coalesce(${r}.principal_state, 'FL') AS principal_state,
  coalesce(${r}.principal_zip5, '') AS principal_zip,
  ${r}.agent_name AS registered_agent_name`;

const FACET_EXPR: Record<Facet, string> = {
  status: `CASE e.status WHEN 'A' THEN 'active' WHEN 'I' THEN 'inactive' ELSE lower(e.status) END`,
  entity_type: 'e.entity_type',
  principal_city: 'e.principal_city',
  principal_state: `coalesce(e.principal_state, 'FL')`,
  filing_year: `extract(year FROM e.filing_date)::int::text`,
  state_of_formation: 'e.state_of_formation',
};

/** What the name asks for: nothing, a 1-2 character prefix, or words. */
type NameMatch =
  | { kind: 'none' }
  | { kind: 'empty' }
  | { kind: 'prefix'; norm: string; core: string }
  | { kind: 'words'; norm: string; core: string; terms: Term[] };

const NO_NAME: NameMatch = { kind: 'none' };

async function analyzeName(pool: pg.Pool, name: string | undefined): Promise<NameMatch> {
  if (name === undefined) return { kind: 'none' };
  const key = nameKey(name);
  if (key.core === '') return { kind: 'empty' };
  // One or two characters: the start of the name, not a fuzzy word.
  if (key.core.length <= 2) return { kind: 'prefix', norm: key.norm, core: key.core };
  return { kind: 'words', norm: key.norm, core: key.core, terms: await expandWords(pool, 'entity_words', key.words) };
}

const statusLetters = (values: readonly StatusValue[]): Set<string> =>
  new Set(values.map((v) => (v === 'active' ? 'a' : v === 'inactive' ? 'i' : v)));

/**
 * A filter column as conditions read it. With a name, status, type and dates are checked on the rows
 * the name finds, never through their indexes: a few values (or a wide range) cover millions of rows,
 * and PostgreSQL would AND a bitmap of all of them with the name's (seconds at 12.6 million entities).
 */
const filterColumn = (column: 'status' | 'entity_type' | 'filing_date', named: boolean): string =>
  !named ? `e.${column}` : column === 'filing_date' ? `(e.filing_date + 0)` : `(e.${column} || '')`;

/** `a`/`active`, `i`/`inactive`, or a refined letter of the entity's last inactivating event. */
function statusCondition(sql: Sql, values: readonly StatusValue[], named: boolean): string {
  const letters = statusLetters(values);
  const status = filterColumn('status', named);
  const parts: string[] = [];
  if (letters.has('a')) parts.push(`${status} = 'A'`);
  if (letters.has('i')) parts.push(`${status} = 'I'`);
  const refined = [...letters].filter((l) => l !== 'a' && l !== 'i');
  if (refined.length) {
    parts.push(
      `(${status} = 'I' AND EXISTS (SELECT 1 FROM registry.inactivations x WHERE x.document_number = e.document_number AND x.letter = ANY(${sql.p(refined)}::text[])))`,
    );
  }
  return `(${parts.join(' OR ')})`;
}

/** The order a page is in: relevance with a name, else newest first, unless the query sorts otherwise. */
const sortOf = (q: EntitySearch, name: NameMatch): NonNullable<EntitySearch['sort']> =>
  q.sort === undefined || q.sort === 'relevance'
    ? name.kind === 'prefix' || name.kind === 'words'
      ? 'relevance'
      : 'date_newest'
    : q.sort;

/** The rows each filing year (-1: undated) holds of a listing's status, of its type, and of both. */
export interface YearRows {
  year: number;
  status: number;
  type: number;
  both: number;
}

/**
 * The filter whose date index (migration 014) a listing of one status and one type sorted by date
 * walks, testing the other on each row: the one that reads fewer rows before `rows` match, taking the
 * years in the sort's order (undated rows last either way). Status and type correlate with the date:
 * the oldest inactive entities are corporations, so inactive LLCs oldest first walked the status
 * index past 206,027 inactive corporations (1.8 s at 12.6 million entities after a restart, 311 ms
 * warm), where most of the oldest LLCs are inactive. Migration 034 puts the other filter in each
 * index, so the walk tests it on index entries.
 */
export function dateWalkFilter(years: readonly YearRows[], ascending: boolean, rows: number): 'status' | 'entity_type' {
  const order = [...years].sort((a, b) =>
    a.year === -1 ? 1 : b.year === -1 ? -1 : ascending ? a.year - b.year : b.year - a.year,
  );
  const read = (side: 'status' | 'type'): number => {
    let passed = 0;
    let found = 0;
    for (const y of order) {
      if (found + y.both >= rows) return passed + (y[side] * (rows - found)) / y.both;
      passed += y[side];
      found += y.both;
    }
    return passed;
  };
  return read('type') < read('status') ? 'entity_type' : 'status';
}

/**
 * For a listing without a name or city, of one status (active or inactive) and one type, sorted by
 * date and read off a sort index (as many matches as `sortAllBelow` or more): the filter whose index
 * it walks (see dateWalkFilter), by the precomputed counts. Null for any other query.
 */
async function dateWalk(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  name: NameMatch,
): Promise<'status' | 'entity_type' | null> {
  const sort = sortOf(q, name);
  const filters = countedFilters(q);
  const letters = q.status?.length ? [...statusLetters(q.status)] : [];
  if (
    name.kind !== 'none' ||
    q.principal_city !== undefined ||
    (sort !== 'date_newest' && sort !== 'date_oldest') ||
    !filters
  )
    return null;
  if (letters.length !== 1 || q.entity_type?.length !== 1) return null;
  const matches = await ctx.counts.get(cacheKey(ctx, q, NO_NAME, 'total'), () =>
    countSlice(pool, slicedCount(q, NO_NAME)!),
  );
  if (matches < ctx.sortAllBelow) return null;
  const years = q.filed_after || q.filed_before ? 'filing_year BETWEEN $3 AND $4' : 'true';
  const { rows } = await pool.query<YearRows>(
    `SELECT filing_year AS year, coalesce(sum(n) FILTER (WHERE status = $1), 0)::float8 AS status,
            coalesce(sum(n) FILTER (WHERE entity_type = $2), 0)::float8 AS type,
            coalesce(sum(n) FILTER (WHERE status = $1 AND entity_type = $2), 0)::float8 AS both
     FROM registry.entity_counts WHERE slice = '' AND (status = $1 OR entity_type = $2) AND ${years} GROUP BY 1`,
    [
      letters[0]!.toUpperCase(),
      q.entity_type[0],
      ...(years === 'true'
        ? []
        : [Number(q.filed_after?.slice(0, 4) ?? 0), Number(q.filed_before?.slice(0, 4) ?? 9999)]),
    ],
  );
  return dateWalkFilter(rows, sort === 'date_oldest', q.offset + q.limit);
}

/** The conditions of status, type and filing dates, on the rows a name finds when `named` (see filterColumn). */
function rowFilters(
  sql: Sql,
  q: EntitySearch,
  named: boolean,
  walked: 'status' | 'entity_type' | null = null,
): string[] {
  const where: string[] = [];
  // A listing walking one filter's date index tests the other on its rows (see dateWalk).
  if (q.status?.length) where.push(statusCondition(sql, q.status, named || walked === 'entity_type'));
  const type = filterColumn('entity_type', named || walked === 'status');
  // One type as `=`: a list (`= ANY`) cannot walk the type-and-date index in date order.
  if (q.entity_type?.length === 1) where.push(`${type} = ${sql.p(q.entity_type[0])}`);
  else if (q.entity_type?.length) where.push(`${type} = ANY(${sql.p(q.entity_type)}::text[])`);
  if (q.filed_after !== undefined) where.push(`${filterColumn('filing_date', named)} >= ${sql.p(q.filed_after)}::date`);
  if (q.filed_before !== undefined)
    where.push(`${filterColumn('filing_date', named)} <= ${sql.p(q.filed_before)}::date`);
  return where;
}

async function conditions(
  pool: pg.Pool,
  sql: Sql,
  q: EntitySearch,
  name: NameMatch,
  walked: 'status' | 'entity_type' | null,
): Promise<string[]> {
  const where: string[] = [];
  if (name.kind === 'empty') where.push('false');
  if (name.kind === 'prefix') where.push(`e.name_core LIKE ${sql.p(name.core)} || '%'`);
  // Words within a city: each expansion's key in the city finds exactly its rows (migration 036). The
  // city's own condition is then an expression no index is on: ANDing a bitmap of every row of the
  // city (0.7 µs a row: WICOZ in MIAMI, 1.5 million rows, 1 s) would only cost.
  const city = q.principal_city !== undefined ? sql.p(q.principal_city) : null;
  const cityWords = name.kind === 'words' && city !== null;
  if (name.kind === 'words') {
    where.push(
      city === null
        ? termsMatch(sql, 'e.name_words', name.terms)
        : termsMatch(
            sql,
            'registry.city_words(e.principal_city, e.name_words)',
            name.terms,
            (words) => `registry.city_words(${city}, ${words}::text[])`,
          ),
    );
  }
  const named = name.kind === 'prefix' || name.kind === 'words';
  where.push(...rowFilters(sql, q, named, walked));
  // Every entity here is on the Florida registry.
  if (q.state !== undefined && q.state !== 'FL') where.push('false');
  if (city !== null)
    where.push(`${cityWords ? `(upper(e.principal_city) || '')` : 'upper(e.principal_city)'} = upper(${city})`);
  if (q.principal_state !== undefined) where.push(`coalesce(e.principal_state, 'FL') = ${sql.p(q.principal_state)}`);
  if (q.doc_number_prefix !== undefined) {
    where.push(`e.document_number LIKE ${sql.p(q.doc_number_prefix.toUpperCase().replace(/[\\%_]/g, '\\$&'))} || '%'`);
  }
  if (q.officer_name !== undefined) {
    const terms = await expandWords(pool, 'officer_words', personKey(q.officer_name).words);
    where.push(`e.id IN (SELECT o.entity_id FROM registry.officers o WHERE ${termsMatch(sql, 'o.name_words', terms)})`);
  }
  if (q.ra_name !== undefined) {
    const terms = await expandWords(pool, 'agent_words', agentWords(q.ra_name));
    where.push(termsMatch(sql, 'e.agent_words', terms));
  }
  return where;
}

/**
 * The query's filters other than the name and city when they are all status (active or inactive),
 * type and filing dates: the ones the precomputed counts and the ranked postings hold. Null otherwise.
 */
function countedFilters(q: EntitySearch): Omit<SliceCount, 'slice' | 'predicate'> | null {
  if (
    q.doc_number_prefix !== undefined ||
    q.officer_name !== undefined ||
    q.ra_name !== undefined ||
    q.principal_state !== undefined
  )
    return null;
  if (q.state !== undefined && q.state !== 'FL') return null;
  const letters = q.status?.length ? statusLetters(q.status) : null;
  if (letters && [...letters].some((l) => l !== 'a' && l !== 'i')) return null;
  return {
    ...(letters ? { statuses: [...letters].map((l) => l.toUpperCase()) } : {}),
    ...(q.entity_type?.length ? { types: q.entity_type } : {}),
    ...(q.filed_after ? { after: q.filed_after } : {}),
    ...(q.filed_before ? { before: q.filed_before } : {}),
  };
}

/** The precomputed counts that give this query's total, when its filters allow (see counts.ts). */
function slicedCount(q: EntitySearch, name: NameMatch): SliceCount | null {
  const base = countedFilters(q);
  if (!base) return null;
  const city = q.principal_city?.toUpperCase();
  const inCity = (sql: Sql): string => `upper(e.principal_city) = ${sql.p(city)}`;
  if (name.kind === 'none')
    return city ? { slice: `c:${city}`, predicate: inCity, ...base } : { slice: '', predicate: () => 'true', ...base };
  const named: SliceCount | null =
    name.kind === 'prefix'
      ? { slice: `p:${name.core}`, predicate: (sql) => `e.name_core LIKE ${sql.p(name.core)} || '%'` }
      : name.kind === 'words' && name.terms.length === 1 && name.terms[0]!.frequent
        ? {
            slice: `w:${name.terms[0]!.word}`,
            predicate: (sql) => `e.name_words && ARRAY[${sql.p(name.terms[0]!.word)}::text]`,
          }
        : null;
  if (!named || city === undefined) return named && { ...named, ...base };
  // Within a city the slices are counted without status, type or dates (see citySlicesSql).
  if (Object.keys(base).length > 0) return null;
  return { slice: `c:${city}|${named.slice}`, predicate: (sql) => `${named.predicate(sql)} AND ${inCity(sql)}` };
}

const SORT_ORDER: Record<Exclude<EntitySearch['sort'], 'relevance' | undefined>, string> = {
  name_asc: 'e.name_norm ASC, e.document_number ASC',
  name_desc: 'e.name_norm DESC, e.document_number ASC',
  date_oldest: 'e.filing_date ASC NULLS LAST, e.document_number ASC',
  date_newest: 'e.filing_date DESC NULLS LAST, e.document_number ASC',
};

/**
 * The query's filters as a condition on the ranked postings' own columns (migrations 023 and 033),
 * when they hold them all: the postings that pass are then exactly the matches.
 */
function postingFilter(q: EntitySearch): ((sql: Sql) => string) | undefined {
  const f = countedFilters(q);
  if (!f) return undefined;
  return (sql) => {
    const parts = [
      ...(q.principal_city !== undefined ? [`p.city = upper(${sql.p(q.principal_city)})`] : []),
      ...(f.statuses ? [`p.status = ANY(${sql.p(f.statuses)}::text[])`] : []),
      ...(f.types ? [`p.entity_type = ANY(${sql.p(f.types)}::text[])`] : []),
      ...(f.after ? [`p.filed >= ${sql.p(f.after)}::date`] : []),
      // A posting without a filing date holds -infinity, which no date filter admits.
      ...(f.before ? [`p.filed <= ${sql.p(f.before)}::date AND p.filed > '-infinity'`] : []),
    ];
    return parts.join(' AND ') || 'true';
  };
}

/**
 * The ranked postings' slice (migration 013) a relevance query is exactly: a one- or two-character
 * prefix, or a single frequent word with nothing else (weak words aside) that would change similarity.
 */
function postingSlice(name: NameMatch, q: EntitySearch, filtered: boolean): { postings?: RankedQuery['postings'] } {
  // With a name, only these filters are read through their own indexes (see filterColumn); a prefix
  // within a city through one that finds exactly its matches (migration 025).
  const inCity = q.principal_city !== undefined;
  const indexedFilter =
    inCity && name.kind === 'prefix' ? 'matches' : inCity || q.doc_number_prefix !== undefined ? 'rows' : null;
  const posted = (slice: string): { postings: RankedQuery['postings'] } => ({
    postings: { slice, exactTiers: 2, filtered, indexedFilter, ...(filtered ? { filter: postingFilter(q) } : {}) },
  });
  if (name.kind === 'prefix') return posted(`p:${name.core}`);
  const only = name.kind === 'words' && name.terms.length === 1 ? name.terms[0]! : null;
  if (only?.frequent && name.kind === 'words' && name.core === only.word) return posted(`w:${only.word}`);
  return {};
}

/** Entity names' first-word index (migration 028), in the order of their relevance tiebreak. */
const ENTITY_FIRST_WORDS: FirstWordIndex = {
  from: 'registry.entities e',
  ref: 'e.id',
  text: 'e.name_core',
  words: 'e.name_words',
  trgm: 'e.name_trgm',
  order: ['filing_date DESC NULLS LAST', 'document_number'],
  dictionary: 'entity_words',
};

/**
 * The prefix tier of a word alone (no legal form, not a posting slice) off the first-word index: with
 * no filter, or with filters whose total is added up (wordTotal), tested on each row it reads.
 */
function firstWordTierOf(
  pool: pg.Pool,
  q: EntitySearch,
  name: NameMatch,
  filtered: boolean,
  form: string | null,
  totalAddedUp: boolean,
): Pick<RankedQuery, 'prefixTier'> {
  const only = name.kind === 'words' && name.terms.length === 1 ? name.terms[0]! : null;
  if (!only || (filtered && !totalAddedUp) || form || name.kind !== 'words' || name.core !== only.word) return {};
  const filter = filtered ? (sql: Sql) => rowFilters(sql, q, true).join(' AND ') : undefined;
  return { prefixTier: firstWordTier(pool, ENTITY_FIRST_WORDS, only.word, only.expansions, filter) };
}

/**
 * The exact total of one word with filters that the precomputed counts hold (status, type, whole
 * years; no city), added up without reading its matches (addedUpSql): the counts of its expansions
 * that have them (migration 035) with those filters. Null for any other query.
 */
function wordTotal(pool: pg.Pool, q: EntitySearch, name: NameMatch): (() => Promise<number>) | null {
  const f = countedFilters(q);
  if (
    name.kind !== 'words' ||
    name.terms.length !== 1 ||
    !f ||
    Object.keys(f).length === 0 ||
    q.principal_city !== undefined
  )
    return null;
  const t = name.terms[0]!;
  const { years, ranges } = splitYears(f.after, f.before);
  if (ranges.length > 0 || !addsUp(t)) return null;
  return async () => {
    const s = new Sql();
    const sum = countsSum(
      s,
      t.counted.map((w) => `w:${w}`),
      f,
      years,
    );
    const text = addedUpSql(s, 'registry.entities e', 'e.name_words', t, sum, () =>
      rowFilters(s, q, true).join(' AND '),
    );
    const { rows } = await pool.query<{ n: number }>(`SELECT ${text}::bigint AS n`, s.params);
    return rows[0]!.n;
  };
}

/**
 * The words' bound on the matches (matchBound) and, while the total is not known, with filters the
 * precomputed counts hold (a city, status, type, dates), the total to expect: the bound times the
 * share of all entities the filters keep (the totals of their listings without a name, cached).
 */
async function wordsSize(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  terms: Term[],
  filtered: boolean,
  total: Total,
): Promise<Omit<MatchSize, 'total'>> {
  const size = matchBound(terms, filtered);
  if (!filtered || !total.wanted) return size;
  const listingTotal = (listing: EntitySearch): Promise<number> | null => {
    const sliced = slicedCount(listing, NO_NAME);
    return sliced && ctx.counts.get(cacheKey(ctx, listing, NO_NAME, 'total'), () => countSlice(pool, sliced));
  };
  const kept = listingTotal(q);
  if (!kept) return size;
  const [k, all] = await Promise.all([kept, listingTotal({ limit: q.limit, offset: q.offset })!]);
  return { ...size, expected: all > 0 ? (size.bound * k) / all : size.bound };
}

/** A walk of the sort's index reading at most about this many rows beats sorting every match. */
const WALK_ROWS_MAX = 2_000;

/**
 * Whether a listing of one entity type sorted by name, without a name or city, should walk the
 * type-and-name index (migration 020) however few its matches: the walk reads about the page's rows
 * times the type's rows over the matches (its other filters, status and dates, have nothing to do
 * with the name's order). FORLP entities filed since 2022 by name: 32,441 of the type's 75,330 at
 * 12.6 million entities, sorted whole in 259 ms warm and 2 s and more cold, where the walk reads about
 * 60 rows.
 */
async function typeNameWalk(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  name: NameMatch,
  sort: keyof typeof SORT_ORDER,
  matches: number,
): Promise<boolean> {
  if (
    name.kind !== 'none' ||
    q.principal_city !== undefined ||
    (sort !== 'name_asc' && sort !== 'name_desc') ||
    q.entity_type?.length !== 1
  )
    return false;
  const ofType: EntitySearch = { limit: q.limit, offset: q.offset, entity_type: q.entity_type };
  const sliced = slicedCount(ofType, NO_NAME);
  if (!sliced) return false;
  const typeRows = await ctx.counts.get(cacheKey(ctx, ofType, NO_NAME, 'total'), () => countSlice(pool, sliced));
  return ((q.offset + q.limit) * typeRows) / Math.max(1, matches) <= WALK_ROWS_MAX;
}

/**
 * A page oldest first, walked: there is no ascending date index (migration 039); the newest-first
 * ones read backwards give each day's rows by descending document number and the undated rows
 * first. So the dated rows are read in date order and each day's re-sorted by document number (an
 * incremental sort of one day), and the undated rows, which come last oldest first as newest first,
 * are read by a page that reaches them, counted only when it begins past every dated row.
 */
async function oldestFirstWalk(
  pool: pg.Pool,
  sql: Sql,
  where: string,
  q: EntitySearch,
  matches: number,
): Promise<number[]> {
  const dated = sql.fork();
  const { rows } = await pool.query<{ id: number }>(
    `SELECT e.id FROM registry.entities e WHERE ${where} AND e.filing_date IS NOT NULL
     ORDER BY e.filing_date ASC NULLS FIRST, e.document_number ASC OFFSET ${dated.p(q.offset)} LIMIT ${dated.p(q.limit)}`,
    dated.params,
  );
  const ids = rows.map((r) => r.id);
  if (ids.length === q.limit) return ids;
  const undatedRows = `registry.entities e WHERE ${where} AND e.filing_date IS NULL`;
  let offset = 0;
  if (ids.length === 0) {
    const { rows: counted } = await pool.query<{ n: number }>(
      `SELECT count(*)::bigint AS n FROM ${undatedRows}`,
      sql.params,
    );
    offset = q.offset - (matches - counted[0]!.n);
  }
  const undated = sql.fork();
  const { rows: more } = await pool.query<{ id: number }>(
    `SELECT e.id FROM ${undatedRows} ORDER BY e.document_number ASC OFFSET ${undated.p(offset)} LIMIT ${undated.p(q.limit - ids.length)}`,
    undated.params,
  );
  return [...ids, ...more.map((r) => r.id)];
}

/** The refs of the requested page, in order. */
async function pageRefs(
  pool: pg.Pool,
  ctx: SearchContext,
  sql: Sql,
  conds: string[],
  q: EntitySearch,
  name: NameMatch,
  total: Total,
  totalAddedUp: boolean,
): Promise<number[]> {
  const where = conds.join(' AND ') || 'true';
  const sort = sortOf(q, name);
  if (sort !== 'relevance') {
    const matches = await total.get();
    if (matches <= q.offset) return [];
    const s = sql.fork();
    // Few matches are found through their filters' indexes and sorted (the fence keeps PostgreSQL
    // from walking the sort's index instead, past millions of rows that fail a filter); many are
    // read off the sort's index.
    // A city's listings have sort indexes of their own (migration 022): walked in order unless the
    // matches are a handful (2,000: a rare type in a large city would read much of the city first).
    const sortAllBelow =
      name.kind === 'none' && q.principal_city !== undefined ? ctx.sortAllBelow / 25 : ctx.sortAllBelow;
    const walk = matches >= sortAllBelow || (await typeNameWalk(pool, ctx, q, name, sort, matches));
    if (walk && sort === 'date_oldest') return oldestFirstWalk(pool, s, where, q, matches);
    const from = walk
      ? `registry.entities e WHERE ${where}`
      : `(SELECT * FROM registry.entities e WHERE ${where} OFFSET 0) e`;
    const { rows } = await pool.query<{ id: number }>(
      `SELECT e.id FROM ${from} ORDER BY ${SORT_ORDER[sort]} OFFSET ${s.p(q.offset)} LIMIT ${s.p(q.limit)}`,
      s.params,
    );
    return rows.map((r) => r.id);
  }
  const { norm, core } = name as { norm: string; core: string };
  const slice = postingSlice(name, q, conds.length > 1);
  // The query's legal form decides between rows alike in similarity (names differing in it alone);
  // the postings' order has no place for it. (A form is one of a few fixed words: safe inline.)
  const form = slice.postings ? null : legalForm(norm);
  const formFirst = form ? `(e.name_norm LIKE '% ${form}') DESC, ` : '';
  return rankedPage(
    pool,
    ctx,
    {
      from: 'registry.entities e',
      ref: 'e.id',
      where,
      // Exact (the full name first, then without its legal form), then prefix.
      tiers: [
        (s) => `e.name_norm = ${s.p(norm)}`,
        (s) => `e.name_core = ${s.p(core)}`,
        (s) => `e.name_core LIKE ${s.p(core)} || '%'`,
      ],
      text: 'e.name_core',
      trgm: 'e.name_trgm',
      query: core,
      tiebreak: `${formFirst}e.filing_date DESC NULLS LAST, e.document_number ASC`,
      sql,
      // The name is one condition; any other is a filter.
      ...slice,
      ...(slice.postings ? {} : firstWordTierOf(pool, q, name, conds.length > 1, form, totalAddedUp)),
    },
    q.offset,
    q.limit,
    {
      ...(name.kind === 'words'
        ? await wordsSize(pool, ctx, q, name.terms, conds.length > 1, total)
        : { bound: Infinity, tight: false }),
      total,
    },
  );
}

async function hits(pool: pg.Pool, ids: number[]): Promise<EntityHit[]> {
  if (ids.length === 0) return [];
  const { rows } = await pool.query<EntityHit>(
    `SELECT ${entityHitColumns('e')} FROM unnest($1::int[]) WITH ORDINALITY AS u(id, pos)
     JOIN registry.entities e ON e.id = u.id ORDER BY u.pos`,
    [ids],
  );
  return rows;
}

async function facetCounts(
  pool: pg.Pool,
  params: unknown[],
  where: string,
  facets: readonly Facet[],
): Promise<EntityPage['facets']> {
  const out: NonNullable<EntityPage['facets']> = {};
  for (const f of facets) {
    const { rows } = await pool.query<{ value: string; count: number }>(
      `SELECT ${FACET_EXPR[f]} AS value, count(*)::int AS count FROM registry.entities e WHERE ${where} AND ${FACET_EXPR[f]} IS NOT NULL
       GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT 20`,
      params,
    );
    out[f] = rows;
  }
  return out;
}

/** The query's identity for cached totals and facets: everything but sort and paging. */
function cacheKey(ctx: SearchContext, q: EntitySearch, name: NameMatch, what: string): string {
  const { sort: _s, limit: _l, offset: _o, facets: _f, name: _n, ...filters } = q;
  const nameKeyPart =
    name.kind === 'words' ? name.terms.map((t) => t.expansions) : name.kind === 'prefix' ? name.core : name.kind;
  return JSON.stringify([what, ctx.version, nameKeyPart, filters]);
}

export async function searchEntities(pool: pg.Pool, ctx: SearchContext, q: EntitySearch): Promise<EntityPage> {
  const name = await analyzeName(pool, q.name);
  const sql = new Sql();
  const conds = await conditions(pool, sql, q, name, await dateWalk(pool, ctx, q, name));
  const where = conds.join(' AND ') || 'true';
  // The match predicate's own parameters (ranking adds more to `sql` for its statements).
  const params = [...sql.params];
  const sliced = slicedCount(q, name);
  const addedUp = sliced ? null : wordTotal(pool, q, name);
  const counted = new Total(
    ctx.counts,
    cacheKey(ctx, q, name, 'total'),
    async () => {
      if (sliced) return countSlice(pool, sliced);
      if (addedUp) return addedUp();
      // One word and nothing else.
      if (name.kind === 'words' && name.terms.length === 1 && conds.length === 1)
        return countTerm(pool, 'registry.entities e', 'e.name_words', name.terms[0]!);
      return countRows(pool, 'registry.entities e', where, params);
    },
    sliced !== null || addedUp !== null,
  );
  const ids = await pageRefs(pool, ctx, sql, conds, q, name, counted, addedUp !== null);
  const [found, total] = await Promise.all([hits(pool, ids), counted.get()]);
  const page: EntityPage = { hits: found, total };
  if (q.facets?.length) {
    page.facets = await ctx.facets.get(cacheKey(ctx, q, name, `facets:${[...q.facets].sort().join(',')}`), () =>
      facetCounts(pool, params, where, q.facets!),
    );
  }
  return page;
}
