// The search module: every query the operations run, bound to the (read) pool.
import type pg from 'pg';
import { searchAddresses } from './addresses.js';
import { entityDetail } from './detail.js';
import { searchEntities, type EntitySearch } from './entities.js';
import { filingsBetween, latestFilingDate } from './filings.js';
import { leadFileRows, searchLeads, type LeadQuery } from './leads.js';
import type { PageRequest } from './paging.js';
import { searchAgents, searchOfficers } from './people.js';

export function createSearch(pool: pg.Pool) {
  return {
    entities: (q: EntitySearch) => searchEntities(pool, q),
    entity: (documentNumber: string) => entityDetail(pool, documentNumber),
    officers: (q: PageRequest & { name?: string; title?: string }) => searchOfficers(pool, q),
    agents: (q: PageRequest & { name?: string }) => searchAgents(pool, q),
    addresses: (q: PageRequest & { query: string }) => searchAddresses(pool, q),
    filingsBetween: (from: string, to: string, page: PageRequest) => filingsBetween(pool, from, to, page),
    latestFilingDate: (today: string) => latestFilingDate(pool, today),
    leads: (q: LeadQuery) => searchLeads(pool, q),
    leadFile: (date: string) => leadFileRows(pool, date),
  };
}

export type Search = ReturnType<typeof createSearch>;
