// How an entity query is answered (docs/search.md, "The strategy"), decided once before any page is read:
// the match predicate, the way its exact total is found, the order of its page, and for a sorted listing
// which index gives that order. Every step of the search (search.ts) reads the one EntityStrategy. A
// relevance page is then found by the ranking's strategy (src/search/ranking/strategy.ts) from the ranked
// query these decisions shape (a posting slice, a first-word tier). Thresholds: src/search/thresholds.ts.
import type pg from 'pg';
import type { SearchContext } from '../context.js';
import type { RankedQuery } from '../ranking/query.js';
import { Sql } from '../sql.js';
import { statusLetters } from '../status.js';
import { CITY_SORT_ALL_DIVISOR, TYPE_NAME_WALK_ROWS_MAX } from '../thresholds.js';
import { splitYears, type CountFilters, type SliceCount } from '../totals/precomputed.js';
import { addsUp } from '../words/counts.js';
import type { Term } from '../words/expansion.js';
import { dateWalkFilter, type YearRows } from './date-walk.js';
import { countedFilters, matchConditions, postingFilter, type WalkedFilter } from './filters.js';
import { analyzeName, isNamed, soleTerm, wordAlone, type NameMatch, type Named } from './name.js';
import type { EntitySearch, Sort } from './query.js';
import { listingTotal, slicedCount } from './slices.js';

/** An entity query as decided once, before any page is read: what every step of the search reads. */
export interface EntityStrategy {
  readonly q: EntitySearch;
  readonly name: NameMatch;
  /** The query's filters that the precomputed counts and ranked postings hold (countedFilters), or null. */
  readonly counted: CountFilters | null;
  /** The match predicate (the name's condition first, then each filter's) and its statement's parameters. */
  readonly sql: Sql;
  readonly where: string;
  /** The predicate's own parameters (ranking adds more to `sql` for its statements). */
  readonly params: unknown[];
  /** The query has conditions besides its name: filters. */
  readonly filtered: boolean;
  readonly total: TotalWay;
  readonly order: Order;
}

export async function entityStrategy(pool: pg.Pool, ctx: SearchContext, q: EntitySearch): Promise<EntityStrategy> {
  const name = await analyzeName(pool, q.name, ctx.expand);
  const counted = countedFilters(q);
  const sql = new Sql();
  const conditions = await matchConditions(pool, sql, q, name, await dateWalk(pool, ctx, q, name, counted));
  return {
    q,
    name,
    counted,
    sql,
    where: conditions.join(' AND ') || 'true',
    params: [...sql.params],
    // The name is one condition; any other is a filter.
    filtered: conditions.length > 1,
    total: totalWay(q, name, counted, conditions.length),
    order: orderOf(q, name),
  };
}

/** A sort other than relevance. */
export type SortKey = Exclude<Sort, 'relevance'>;

/** The order of a page: relevance (of a name) or a sort. */
type Order = { by: 'relevance'; name: Named } | { by: SortKey };

/** The order a page is in: relevance with a name, else newest first, unless the query sorts otherwise. */
function orderOf(q: EntitySearch, name: NameMatch): Order {
  if (q.sort !== undefined && q.sort !== 'relevance') return { by: q.sort };
  return isNamed(name) ? { by: 'relevance', name } : { by: 'date_newest' };
}

export interface AddedUp {
  way: 'added up';
  term: Term;
  filters: CountFilters;
  years: [number, number] | null;
}

/** How the exact total is found when it is not cached (or learned from a statement ranking every match). */
export type TotalWay =
  /** All entities, a city, a prefix or a frequent word, with the filters the counts hold. */
  | { way: 'precomputed counts'; slice: SliceCount }
  /** One word with status, type or whole years (no city): its words' counts less the rows holding two. */
  | AddedUp
  /** One word and nothing else: from the dictionary, less the rows holding two of its words. */
  | { way: 'one word'; term: Term }
  /** Anything else: counted over the match predicate, by its index bitmaps. */
  | { way: 'counted' };

/** The way to the total; `conditions` is the number of the match predicate's conditions. */
function totalWay(q: EntitySearch, name: NameMatch, counted: CountFilters | null, conditions: number): TotalWay {
  const slice = slicedCount(q, name, counted);
  if (slice) return { way: 'precomputed counts', slice };
  const term = soleTerm(name);
  const filters = counted;
  if (term && filters && Object.keys(filters).length > 0 && q.principal_city === undefined) {
    const { years, ranges } = splitYears(filters.after, filters.before);
    if (ranges.length === 0 && addsUp(term)) return { way: 'added up', term, filters, years };
  }
  return term && conditions === 1 ? { way: 'one word', term } : { way: 'counted' };
}

/**
 * For a listing without a name or city, of one status (active or inactive) and one type, sorted by
 * date and read off a sort index (as many matches as `sortAllBelow` or more): the filter whose date
 * index it walks (see dateWalkFilter), by the precomputed counts. Null for any other query.
 */
async function dateWalk(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  name: NameMatch,
  counted: CountFilters | null,
): Promise<WalkedFilter | null> {
  const sort = orderOf(q, name).by;
  const letters = q.status?.length ? [...statusLetters(q.status)] : [];
  if (
    name.kind !== 'none' ||
    q.principal_city !== undefined ||
    (sort !== 'date_newest' && sort !== 'date_oldest') ||
    !counted
  )
    return null;
  if (letters.length !== 1 || q.entity_type?.length !== 1) return null;
  const matches = await listingTotal(pool, ctx, q)!;
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

/** How a sorted page is found. */
export type SortedWay =
  /** Past the last match. */
  | 'nothing'
  /** Few matches: found through their filters' indexes and sorted (fenced from the sort's index). */
  | 'sort all'
  /** Many: read off the sort's index in order. */
  | 'walk the sort index'
  /** Many, oldest first: the newest-first date indexes read backwards (oldestFirstWalk). */
  | 'walk oldest first';

/**
 * The way to a sorted page of `matches`. Few matches are found through their filters' indexes and
 * sorted, where PostgreSQL would walk the sort's index past millions of rows that fail a filter;
 * many are read off the sort's index. A city's listings have sort indexes of their own
 * (entities_city_date_idx, entities_city_name_idx), walked unless the matches are a handful.
 */
export async function sortedWay(
  pool: pg.Pool,
  ctx: SearchContext,
  { q, name }: EntityStrategy,
  sort: SortKey,
  matches: number,
): Promise<SortedWay> {
  if (matches <= q.offset) return 'nothing';
  const cityListing = name.kind === 'none' && q.principal_city !== undefined;
  const sortAllBelow = cityListing ? ctx.sortAllBelow / CITY_SORT_ALL_DIVISOR : ctx.sortAllBelow;
  const walk = matches >= sortAllBelow || (await typeNameWalk(pool, ctx, q, name, sort, matches));
  if (!walk) return 'sort all';
  return sort === 'date_oldest' ? 'walk oldest first' : 'walk the sort index';
}

/**
 * Whether a listing of one entity type sorted by name, without a name or city, should walk the
 * type-and-name index (entities_type_name_idx) however few its matches: the walk reads about the
 * page's rows times the type's rows over the matches (its other filters, status and dates, have
 * nothing to do with the name's order). FORLP entities filed since 2022 by name: 32,441 of the type's
 * 75,330, sorted whole in 259 ms warm and 2 s and more cold, where the walk reads about 60 rows.
 */
async function typeNameWalk(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  name: NameMatch,
  sort: SortKey,
  matches: number,
): Promise<boolean> {
  if (
    name.kind !== 'none' ||
    q.principal_city !== undefined ||
    (sort !== 'name_asc' && sort !== 'name_desc') ||
    q.entity_type?.length !== 1
  )
    return false;
  const typeRows = listingTotal(pool, ctx, { limit: q.limit, offset: q.offset, entity_type: q.entity_type });
  if (!typeRows) return false;
  return ((q.offset + q.limit) * (await typeRows)) / Math.max(1, matches) <= TYPE_NAME_WALK_ROWS_MAX;
}

/** A posting slice as the ranked query holds it. */
export type PostingSlice = NonNullable<RankedQuery['postings']>;

/**
 * The ranked postings' slice a relevance query is exactly: a one- or two-character prefix, or a
 * single frequent word with nothing else (weak words aside) that would change similarity.
 */
export function postingSlice({ q, counted, filtered }: EntityStrategy, name: Named): PostingSlice | undefined {
  // With a name, only these filters are read through their own indexes (see filters.ts); a prefix
  // within a city through one that finds exactly its matches (entities_city_core_idx).
  const inCity = q.principal_city !== undefined;
  const indexedFilter =
    inCity && name.kind === 'prefix' ? 'matches' : inCity || q.doc_number_prefix !== undefined ? 'rows' : null;
  const posted = (slice: string): PostingSlice => ({
    slice,
    filtered,
    indexedFilter,
    ...(filtered ? { filter: postingFilter(q, counted) } : {}),
  });
  if (name.kind === 'prefix') return posted(`p:${name.core}`);
  const word = wordAlone(name);
  return word?.frequent ? posted(`w:${word.word}`) : undefined;
}

/**
 * The word whose prefix tier is read off the first-word index (entities_first_word_order_idx): a
 * word alone, not a posting slice, without a legal form to rank by, and with no filter or filters
 * whose total is added up (they are then tested on each row the index gives).
 */
export function firstWordTierWord(
  name: NameMatch,
  filtered: boolean,
  form: string | null,
  total: TotalWay,
): Term | null {
  const word = wordAlone(name);
  return word && (!filtered || total.way === 'added up') && !form ? word : null;
}
