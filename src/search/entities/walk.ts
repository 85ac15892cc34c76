// An entity search as pages of a walk (docs/contract.md, "Cursors"): a sorted listing is read on from its last
// row's keys, pinned to its first page's version; a relevance ranking is read by position.
import type pg from 'pg';
import type { SearchContext } from '../context.js';
import { firstPage, walkVersions, type Walk, type WalkPage } from '../walk.js';
import type { EntityHit } from '../shapes.js';
import { entitiesAfter, entityKeys } from './after.js';
import type { EntitySearch } from './query.js';
import { searchEntities, type EntityPage } from './search.js';
import type { SortKey } from './strategy.js';

/** The sort a search's pages are read on by keys in; null for a relevance ranking (read by position). */
const keyedSort = (q: EntitySearch): SortKey | null =>
  q.sort !== undefined && q.sort !== 'relevance' ? q.sort : q.name === undefined ? 'date_newest' : null;

export async function walkEntities(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  walk: Walk | null,
): Promise<EntityPage & WalkPage<EntityHit>> {
  const sort = keyedSort(q);
  // By position: a relevance ranking of the live dataset, not pinned, so no version is read (the hot path of name
  // searches); a later page is facet-free (the first page had them).
  if (!sort || (walk && !walk.after)) {
    const page = await searchEntities(pool, ctx, walk ? { ...q, facets: undefined } : q);
    return walk
      ? { hits: page.hits, total: walk.total, version: walk.version, last: null }
      : { ...page, version: 0, last: null };
  }
  if (!walk) {
    const page = await firstPage(pool, () => searchEntities(pool, ctx, q));
    const lastHit = page.hits.at(-1);
    // The keys of the last row are read only when a page follows.
    const more = lastHit && q.offset + q.limit < page.total;
    return { ...page, last: more ? await entityKeys(pool, sort, lastHit.document_number) : null };
  }
  const now = await walkVersions(pool, walk);
  const at = { pin: walk.version, total: walk.total, now };
  const { rows, last } = await entitiesAfter(pool, ctx, q, sort, walk.after!, at);
  return { hits: rows, total: walk.total, version: walk.version, last };
}
