// Entity search: a name (fuzzy; ranked exact, then prefix, then trigram similarity), filters, sorts,
// the exact total and facets, all from one match predicate (docs/search.md). The planner (plan.ts)
// decides each step; this is the order they run in.
import type pg from 'pg';
import { entityKey } from '../cache-keys.js';
import type { SearchContext } from '../context.js';
import type { Page } from '../paging.js';
import type { EntityHit, FacetCounts } from '../shapes.js';
import { Sql } from '../sql.js';
import { facetCounts } from './facets.js';
import { matchConditions } from './filters.js';
import { entityHits } from './hits.js';
import { analyzeName } from './name.js';
import { orderOf, planDateWalk, planSorted, planTotal } from './plan.js';
import type { EntitySearch } from './query.js';
import { relevancePage } from './ranked.js';
import { sortedPage } from './sorted.js';
import { entityTotal } from './totals.js';

export interface EntityPage extends Page<EntityHit> {
  facets?: FacetCounts;
}

export async function searchEntities(pool: pg.Pool, ctx: SearchContext, q: EntitySearch): Promise<EntityPage> {
  const name = await analyzeName(pool, q.name);
  const sql = new Sql();
  const conds = await matchConditions(pool, sql, q, name, await planDateWalk(pool, ctx, q, name));
  const where = conds.join(' AND ') || 'true';
  // The match predicate's own parameters (ranking adds more to `sql` for its statements).
  const params = [...sql.params];
  const totalWay = planTotal(q, name, conds.length);
  const total = entityTotal(pool, ctx, q, name, totalWay, where, params);
  const order = orderOf(q, name);
  let ids: number[];
  if (order.by === 'relevance') {
    ids = await relevancePage(pool, ctx, sql, where, conds.length, q, order.name, total, totalWay);
  } else {
    const matches = await total.get();
    const way = await planSorted(pool, ctx, q, name, order.by, matches);
    ids = await sortedPage(pool, sql, where, q, order.by, way, matches);
  }
  const [hits, found] = await Promise.all([entityHits(pool, ids), total.get()]);
  const page: EntityPage = { hits, total: found };
  if (q.facets?.length) {
    const facets = q.facets;
    page.facets = await ctx.facets.get(entityKey(ctx.version, q, name, `facets:${[...facets].sort().join(',')}`), () =>
      facetCounts(pool, params, where, facets),
    );
  }
  return page;
}
