// The table of operations: the eight registry operations (REST routes and MCP tools) and the
// account usage route (REST only, free).
import type { Operation } from '../operation.js';
import { accountUsage } from './account.js';
import { getEntity, searchEntities } from './entities.js';
import { listDailyFilings, listRecentFilings } from './filings.js';
import { listNewBusinessLeads } from './leads.js';
import { searchAddresses, searchAgents, searchOfficers } from './people.js';

export const OPERATIONS: readonly Operation[] = [
  searchEntities,
  getEntity,
  searchOfficers,
  searchAgents,
  searchAddresses,
  listDailyFilings,
  listRecentFilings,
  listNewBusinessLeads,
  accountUsage,
] as unknown as readonly Operation[];
