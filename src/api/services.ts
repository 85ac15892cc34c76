// What handlers may use: the search module's queries, account reads and the dataset's status.
import type pg from 'pg';
import type { Caller } from '../accounts/gate.js';
import { accountUsage, type AccountUsage } from '../accounts/usage.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { DatasetInfo } from '../registry/dataset-info.js';
import { createSearch, type Search } from '../search/index.js';

export interface Services {
  readonly search: Search;
  readonly dataset: DatasetInfo;
  usage(caller: Caller): Promise<AccountUsage>;
  /** Monitoring's store is on the primary (its writes and the events of the imports). */
  readonly monitoring: { readonly pool: pg.Pool; readonly allowPrivate: boolean };
}

export function createServices(db: Database, clock: Clock, allowPrivateWebhooks = false): Services {
  const dataset = new DatasetInfo(db.pool, clock);
  return {
    search: createSearch(db.readPool, async () => (await dataset.state()).version),
    dataset,
    usage: (caller) => accountUsage(db.pool, caller, clock.now()),
    monitoring: { pool: db.pool, allowPrivate: allowPrivateWebhooks },
  };
}
