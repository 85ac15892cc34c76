// The search module: every query the operations run, bound to the (read) pool, with the caches of
// exact totals keyed by dataset version.
import type pg from 'pg';
import { searchAddresses } from './addresses.js';
import type { SearchContext } from './context.js';
import { entityDetail } from './detail.js';
import type { EntitySearch } from './entities/query.js';
import { searchEntities } from './entities/search.js';
import { walkEntities } from './entities/walk.js';
import { matchEntities, type MatchOptions } from './match/index.js';
import type { MatchQuery } from './match/shapes.js';
import { latestFilingDate, walkFilings } from './filings.js';
import { leadFileRows, walkLeads, type LeadQuery } from './leads.js';
import type { PageRequest } from './paging.js';
import { searchAgents, searchOfficers } from './people.js';
import type { FacetCounts } from './shapes.js';
import { CACHED_FACETS, RANK_WHOLE_BELOW, SORT_ALL_BELOW } from './thresholds.js';
import { ResultCache } from './totals/cache.js';
import type { Walk } from './walk.js';

/**
 * `rankWholeBelow`, `sortAllBelow`: tests set 0 to drive every relevance page, or sorted listing, through its walk;
 * `walkRowsCap`, a test's walks as the matcher's are (SearchContext).
 */
export function createSearch(
  pool: pg.Pool,
  datasetVersion: () => Promise<number>,
  opts: { rankWholeBelow?: number; sortAllBelow?: number; walkRowsCap?: number } = {},
) {
  const counts = new ResultCache<number>();
  const facets = new ResultCache<FacetCounts | undefined>(CACHED_FACETS);
  const context = async (): Promise<SearchContext> => ({
    version: await datasetVersion(),
    counts,
    facets,
    rankWholeBelow: opts.rankWholeBelow ?? RANK_WHOLE_BELOW,
    sortAllBelow: opts.sortAllBelow ?? SORT_ALL_BELOW,
    ...(opts.walkRowsCap === undefined ? {} : { walkRowsCap: opts.walkRowsCap }),
  });
  return {
    entities: async (q: EntitySearch) => searchEntities(pool, await context(), q),
    entityWalk: async (q: EntitySearch, walk: Walk | null) => walkEntities(pool, await context(), q, walk),
    entity: (documentNumber: string) => entityDetail(pool, documentNumber),
    match: async (queries: readonly MatchQuery[], opts: MatchOptions) =>
      matchEntities(pool, await context(), queries, opts),
    officers: async (q: PageRequest & { name?: string; title?: string }) => searchOfficers(pool, await context(), q),
    agents: async (q: PageRequest & { name?: string }) => searchAgents(pool, await context(), q),
    addresses: async (q: PageRequest & { query: string }) => searchAddresses(pool, await context(), q),
    filingsBetween: (from: string, to: string, page: PageRequest, walk: Walk | null) =>
      walkFilings(pool, from, to, page, walk),
    latestFilingDate: (today: string) => latestFilingDate(pool, today),
    leads: (q: LeadQuery, walk: Walk | null) => walkLeads(pool, q, walk),
    leadFile: (date: string) => leadFileRows(pool, date),
  };
}

export type Search = ReturnType<typeof createSearch>;

// What other layers may use of the search beside createSearch: the shapes of its answers and queries (the
// operations' schemas are built from them) and the entity predicates monitoring evaluates itself.
export { FACETS, SORTS, type EntitySearch } from './entities/query.js';
export { entityPredicates } from './entities/predicates.js';
export { shownCountry, shownPrincipalState } from './detail.js';
export { LEAD_FILE_COLUMNS } from './leads.js';
export type { Page } from './paging.js';
export type { EntityPage } from './entities/search.js';
export { WalkExpired, type Walk } from './walk.js';
export type { Keys } from './keyset.js';
export {
  AddressHit,
  AgentHit,
  EntityDetail,
  EntityHit,
  FacetValue,
  FilingHit,
  LeadFileRow,
  LeadHit,
  OfficerHit,
} from './shapes.js';
export { STATUS_VALUES } from './status.js';
export { ALGORITHM_NAMES, DEFAULT_ALGORITHM, type AlgorithmName } from './match/index.js';
export { MatchAnswer, type MatchQuery } from './match/shapes.js';
export { FACET_VALUES } from './thresholds.js';
