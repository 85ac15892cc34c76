// An entity query's exact total, found the way the planner chose (planTotal), and what is known of
// its matches before that: the bound the ranking plans with (docs/search.md, "Totals").
import type pg from 'pg';
import { entityKey } from '../cache-keys.js';
import type { SearchContext } from '../context.js';
import type { MatchSize } from '../ranking/query.js';
import { Sql } from '../sql.js';
import { countSlice, countsSum, type SliceCount } from '../totals/precomputed.js';
import { countRows, Total } from '../totals/total.js';
import { addedUpSql, countTerm } from '../words/counts.js';
import { matchBound } from '../words/expansion.js';
import { countedFilters, rowFilters } from './filters.js';
import { NO_NAME, soleTerm, type NameMatch } from './name.js';
import type { AddedUp, TotalWay } from './plan.js';
import type { EntitySearch } from './query.js';

/**
 * The precomputed counts that give this query's total, when they hold its filters: all entities or a
 * city without a name; a prefix or a frequent word alone, with status, type and dates, or within a
 * city with none of those (the city slices are counted without them).
 */
export function slicedCount(q: EntitySearch, name: NameMatch): SliceCount | null {
  const base = countedFilters(q);
  if (!base) return null;
  const city = q.principal_city?.toUpperCase();
  const inCity = (sql: Sql): string => `upper(e.principal_city) = ${sql.p(city)}`;
  if (name.kind === 'none')
    return city ? { slice: `c:${city}`, predicate: inCity, ...base } : { slice: '', predicate: () => 'true', ...base };
  const term = soleTerm(name);
  const frequent = term?.frequent ? term.word : null;
  const named: SliceCount | null =
    name.kind === 'prefix'
      ? { slice: `p:${name.core}`, predicate: (sql) => `e.name_core LIKE ${sql.p(name.core)} || '%'` }
      : frequent !== null
        ? { slice: `w:${frequent}`, predicate: (sql) => `e.name_words && ARRAY[${sql.p(frequent)}::text]` }
        : null;
  if (!named || city === undefined) return named && { ...named, ...base };
  if (Object.keys(base).length > 0) return null;
  return { slice: `c:${city}|${named.slice}`, predicate: (sql) => `${named.predicate(sql)} AND ${inCity(sql)}` };
}

/** The total of a listing without a name, from the precomputed counts (cached); null when they do not hold it. */
export function listingTotal(pool: pg.Pool, ctx: SearchContext, listing: EntitySearch): Promise<number> | null {
  const sliced = slicedCount(listing, NO_NAME);
  return sliced && ctx.counts.get(entityKey(ctx.version, listing, NO_NAME, 'total'), () => countSlice(pool, sliced));
}

/**
 * One word's total with filters the precomputed counts hold, added up without reading its matches
 * (addedUpSql): the counts of its expansions that have their own ('w:WORD' slices) with those filters.
 */
async function addedUpTotal(pool: pg.Pool, q: EntitySearch, way: AddedUp): Promise<number> {
  const s = new Sql();
  const sum = countsSum(
    s,
    way.term.counted.map((w) => `w:${w}`),
    way.filters,
    way.years,
  );
  const text = addedUpSql(s, 'registry.entities e', 'e.name_words', way.term, sum, () =>
    rowFilters(s, q, true).join(' AND '),
  );
  const { rows } = await pool.query<{ n: number }>(`SELECT ${text}::bigint AS n`, s.params);
  return rows[0]!.n;
}

/** The query's total, counted (when not cached or learned) the planned way over the predicate `where`. */
export function entityTotal(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  name: NameMatch,
  way: TotalWay,
  where: string,
  params: unknown[],
): Total {
  const count = async (): Promise<number> => {
    switch (way.way) {
      case 'precomputed counts':
        return countSlice(pool, way.slice);
      case 'added up':
        return addedUpTotal(pool, q, way);
      case 'one word':
        return countTerm(pool, 'registry.entities e', 'e.name_words', way.term);
      case 'counted':
        return countRows(pool, 'registry.entities e', where, params);
    }
  };
  const cheap = way.way === 'precomputed counts' || way.way === 'added up';
  return new Total(ctx.counts, entityKey(ctx.version, q, name, 'total'), count, cheap);
}

/**
 * The name's bound on the matches (matchBound) and, while the total is not known, with filters the
 * precomputed counts hold (a city, status, type, dates), the total to expect: the bound times the
 * share of all entities the filters keep (the totals of their listings without a name, cached).
 */
export async function matchSize(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  name: NameMatch,
  filtered: boolean,
  total: Total,
): Promise<MatchSize> {
  if (name.kind !== 'words') return { bound: Infinity, tight: false, total };
  const size = { ...matchBound(name.terms, filtered, name.relaxed), total };
  if (!filtered || !total.wanted) return size;
  const kept = listingTotal(pool, ctx, q);
  if (!kept) return size;
  const [k, all] = await Promise.all([kept, listingTotal(pool, ctx, { limit: q.limit, offset: q.offset })!]);
  return { ...size, expected: all > 0 ? (size.bound * k) / all : size.bound };
}
