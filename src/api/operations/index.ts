// The table of operations: the eight registry operations (REST routes and MCP tools), the lead
// feed's daily CSV file and the account usage route (REST only).
import type { Operation } from '../operation.js';
import { accountUsage } from './account.js';
import { getEntity, searchEntities } from './entities.js';
import { listDailyFilings, listRecentFilings } from './filings.js';
import { listNewBusinessLeads, newBusinessesDailyFile } from './leads.js';
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
  newBusinessesDailyFile,
  accountUsage,
] as unknown as readonly Operation[];
