// Entity search: a name (fuzzy; ranked exact, then prefix, then trigram similarity), filters, sorts,
// the exact total and facets, all from one match predicate (docs/search.md). The strategy (strategy.ts)
// is decided once; this is the order its steps run in, each reading it.
import type pg from 'pg';
import { entityKey } from '../cache-keys.js';
import type { SearchContext } from '../context.js';
import type { Page } from '../paging.js';
import type { EntityHit, FacetCounts } from '../shapes.js';
import { facetCounts } from './facets.js';
import { entityHits } from './hits.js';
import type { EntitySearch } from './query.js';
import { relevancePage } from './ranked.js';
import { sortedPage } from './sorted.js';
import { entityStrategy, sortedWay } from './strategy.js';
import { entityTotal } from './totals.js';

export interface EntityPage extends Page<EntityHit> {
  facets?: FacetCounts;
}

export async function searchEntities(pool: pg.Pool, ctx: SearchContext, q: EntitySearch): Promise<EntityPage> {
  const s = await entityStrategy(pool, ctx, q);
  const total = entityTotal(pool, ctx, s);
  let ids: number[];
  if (s.order.by === 'relevance') {
    ids = await relevancePage(pool, ctx, s, s.order.name, total);
  } else {
    const matches = await total.get();
    const way = await sortedWay(pool, ctx, s, s.order.by, matches);
    ids = await sortedPage(pool, s, s.order.by, way, matches);
  }
  const [hits, found] = await Promise.all([entityHits(pool, ids), total.get()]);
  const page: EntityPage = { hits, total: found };
  if (q.facets?.length) {
    const facets = q.facets;
    page.facets = await ctx.facets.get(
      entityKey(ctx.version, q, s.name, `facets:${[...facets].sort().join(',')}`),
      () => facetCounts(pool, s.params, s.where, facets),
    );
  }
  return page;
}
