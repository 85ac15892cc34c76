// What a search needs besides its pool: the dataset version (cache keys) and the caches.
import type { FacetCounts } from './shapes.js';
import type { Expand } from './words/expansion.js';
import type { ResultCache } from './totals/cache.js';

export interface SearchContext {
  readonly version: number;
  readonly counts: ResultCache<number>;
  readonly facets: ResultCache<FacetCounts | undefined>;
  /** Relevance pages of fewer matches than this are ranked whole rather than walked (RANK_WHOLE_BELOW). */
  readonly rankWholeBelow: number;
  /** Sorted listings of fewer matches than this sort them all rather than walk the sort's index (SORT_ALL_BELOW). */
  readonly sortAllBelow: number;
  /**
   * A trigram walk that reads this many rows one way keeps the best it read instead of ranking its tier whole
   * (WALK_ROWS_MAX): set by the matcher, whose candidates need the names nearest the query, not the exact order of a
   * tier of hundreds of thousands. Unset, every page is exact.
   */
  readonly walkRowsCap?: number;
  /** How a name's words are looked up: by default one statement a search; a batch match shares them (batched.ts). */
  readonly expand?: Expand;
}
