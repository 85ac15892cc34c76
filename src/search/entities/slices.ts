// The precomputed counts (registry.entity_counts) an entity query falls in, when they hold its filters,
// and a listing's total read from them (docs/search.md, "Totals").
import type pg from 'pg';
import { entityKey } from '../cache-keys.js';
import type { SearchContext } from '../context.js';
import type { Sql } from '../sql.js';
import { countSlice, type CountFilters, type SliceCount } from '../totals/precomputed.js';
import { countedFilters } from './filters.js';
import { NO_NAME, soleTerm, type NameMatch } from './name.js';
import type { EntitySearch } from './query.js';

/**
 * The precomputed counts that give this query's total, when they hold its filters (`counted`, the query's
 * countedFilters): all entities or a city without a name; a prefix or a frequent word alone, with status,
 * type and dates, or within a city with none of those (the city slices are counted without them).
 */
export function slicedCount(q: EntitySearch, name: NameMatch, counted: CountFilters | null): SliceCount | null {
  if (!counted) return null;
  const city = q.principal_city?.toUpperCase();
  const inCity = (sql: Sql): string => `upper(e.principal_city) = ${sql.p(city)}`;
  if (name.kind === 'none')
    return city
      ? { slice: `c:${city}`, predicate: inCity, ...counted }
      : { slice: '', predicate: () => 'true', ...counted };
  const term = soleTerm(name);
  const frequent = term?.frequent ? term.word : null;
  const named: SliceCount | null =
    name.kind === 'prefix'
      ? { slice: `p:${name.core}`, predicate: (sql) => `e.name_core LIKE ${sql.p(name.core)} || '%'` }
      : frequent !== null
        ? { slice: `w:${frequent}`, predicate: (sql) => `e.name_words && ARRAY[${sql.p(frequent)}::text]` }
        : null;
  if (!named || city === undefined) return named && { ...named, ...counted };
  if (Object.keys(counted).length > 0) return null;
  return { slice: `c:${city}|${named.slice}`, predicate: (sql) => `${named.predicate(sql)} AND ${inCity(sql)}` };
}

/** The total of a listing without a name, from the precomputed counts (cached); null when they do not hold it. */
export function listingTotal(pool: pg.Pool, ctx: SearchContext, listing: EntitySearch): Promise<number> | null {
  const sliced = slicedCount(listing, NO_NAME, countedFilters(listing));
  return sliced && ctx.counts.get(entityKey(ctx.version, listing, NO_NAME, 'total'), () => countSlice(pool, sliced));
}
