// The search module: every query the operations run, bound to the (read) pool, with the caches of
// exact totals keyed by dataset version.
import type pg from 'pg';
import { searchAddresses } from './addresses.js';
import type { FacetCounts, SearchContext } from './context.js';
import { ResultCache } from './counts.js';
import { entityDetail } from './detail.js';
import { searchEntities, type EntitySearch } from './entities.js';
import { filingsBetween, latestFilingDate } from './filings.js';
import { leadFileRows, searchLeads, type LeadQuery } from './leads.js';
import type { PageRequest } from './paging.js';
import { searchAgents, searchOfficers } from './people.js';

/** `rankWholeBelow`, `sortAllBelow`: tests set 0 to drive every relevance page, or sorted listing, through its walk. */
export function createSearch(
  pool: pg.Pool,
  datasetVersion: () => Promise<number>,
  opts: { rankWholeBelow?: number; sortAllBelow?: number } = {},
) {
  const counts = new ResultCache<number>();
  const facets = new ResultCache<FacetCounts | undefined>(2_000);
  const context = async (): Promise<SearchContext> => ({
    version: await datasetVersion(),
    counts,
    facets,
    rankWholeBelow: opts.rankWholeBelow ?? 25_000,
    sortAllBelow: opts.sortAllBelow ?? 50_000,
  });
  return {
    entities: async (q: EntitySearch) => searchEntities(pool, await context(), q),
    entity: (documentNumber: string) => entityDetail(pool, documentNumber),
    officers: async (q: PageRequest & { name?: string; title?: string }) => searchOfficers(pool, await context(), q),
    agents: async (q: PageRequest & { name?: string }) => searchAgents(pool, await context(), q),
    addresses: async (q: PageRequest & { query: string }) => searchAddresses(pool, await context(), q),
    filingsBetween: (from: string, to: string, page: PageRequest) => filingsBetween(pool, from, to, page),
    latestFilingDate: (today: string) => latestFilingDate(pool, today),
    leads: (q: LeadQuery) => searchLeads(pool, q),
    leadFile: (date: string) => leadFileRows(pool, date),
  };
}

export type Search = ReturnType<typeof createSearch>;
