// An entity query's exact total, found the way its strategy chose (strategy.ts, TotalWay), and what is
// known of its matches before that: the bound the ranking plans with (docs/search.md, "Totals").
import type pg from 'pg';
import { entityKey } from '../cache-keys.js';
import type { SearchContext } from '../context.js';
import type { MatchSize } from '../ranking/query.js';
import { Sql } from '../sql.js';
import { countSlice, countsSum } from '../totals/precomputed.js';
import { countRows, Total } from '../totals/total.js';
import { addedUpSql, countTerm } from '../words/counts.js';
import { matchBound } from '../words/expansion.js';
import { rowFilters } from './filters.js';
import type { EntitySearch } from './query.js';
import { listingTotal } from './slices.js';
import type { AddedUp, EntityStrategy } from './strategy.js';

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

/** The query's total, counted (when not cached or learned) the way its strategy chose. */
export function entityTotal(pool: pg.Pool, ctx: SearchContext, s: EntityStrategy): Total {
  const way = s.total;
  const count = async (): Promise<number> => {
    switch (way.way) {
      case 'precomputed counts':
        return countSlice(pool, way.slice);
      case 'added up':
        return addedUpTotal(pool, s.q, way);
      case 'one word':
        return countTerm(pool, 'registry.entities e', 'e.name_words', way.term);
      case 'counted':
        return countRows(pool, 'registry.entities e', s.where, s.params);
    }
  };
  const cheap = way.way === 'precomputed counts' || way.way === 'added up';
  return new Total(ctx.counts, entityKey(ctx.version, s.q, s.name, 'total'), count, cheap);
}

/**
 * The name's bound on the matches (matchBound) and, while the total is not known, with filters the
 * precomputed counts hold (a city, status, type, dates), the total to expect: the bound times the
 * share of all entities the filters keep (the totals of their listings without a name, cached).
 */
export async function matchSize(
  pool: pg.Pool,
  ctx: SearchContext,
  { q, name, filtered }: EntityStrategy,
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
