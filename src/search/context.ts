// What a search needs besides its pool: the dataset version (cache keys) and the caches.
import type { ResultCache } from './counts.js';

export type FacetCounts = Record<string, Array<{ value: string; count: number }>>;

export interface SearchContext {
  readonly version: number;
  readonly counts: ResultCache<number>;
  readonly facets: ResultCache<FacetCounts | undefined>;
  /** Relevance pages of fewer matches than this are ranked whole rather than walked (see ranked.ts). */
  readonly rankWholeBelow: number;
  /** Sorted listings of fewer matches than this sort them all rather than walk the sort's index (entities.ts). */
  readonly sortAllBelow: number;
}
