// The table of operations: the eight registry operations and batch matching (REST routes and MCP tools), the lead
// feed's daily CSV file, the account usage route (REST only), monitoring: watches, their events (also an MCP tool)
// and webhook endpoints (docs/webhooks.md), the reconciliation credentials (docs/reconciliation.md), and the change
// feed with its live stream (docs/contract.md, "Change feed") and the bulk snapshots (docs/contract.md, "Bulk
// snapshots").
import type { Operation } from '../operation.js';
import { accountUsage } from './account.js';
import { CHANGE_OPERATIONS } from './changes.js';
import { EXPORT_OPERATIONS } from './exports.js';
import { getEntity, searchEntities } from './entities.js';
import { listDailyFilings, listRecentFilings } from './filings.js';
import { listNewBusinessLeads, newBusinessesDailyFile } from './leads.js';
import { matchEntities } from './match.js';
import { MATCH_JOB_OPERATIONS } from './match-jobs.js';
import { RECONCILE_CREDENTIAL_OPERATIONS } from './reconcile-credentials.js';
import { SNAPSHOT_OPERATIONS } from './snapshots.js';
import { WATCH_OPERATIONS } from './watches.js';
import { WEBHOOK_OPERATIONS } from './webhooks.js';
import { searchAddresses, searchAgents, searchOfficers } from './people.js';

export const OPERATIONS: readonly Operation[] = [
  searchEntities,
  getEntity,
  matchEntities,
  ...MATCH_JOB_OPERATIONS,
  searchOfficers,
  searchAgents,
  searchAddresses,
  listDailyFilings,
  listRecentFilings,
  listNewBusinessLeads,
  newBusinessesDailyFile,
  ...EXPORT_OPERATIONS,
  ...CHANGE_OPERATIONS,
  ...SNAPSHOT_OPERATIONS,
  accountUsage,
  ...WATCH_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...RECONCILE_CREDENTIAL_OPERATIONS,
] as unknown as readonly Operation[];
