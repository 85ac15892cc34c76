// What handlers may use: the search module's queries, account reads and the dataset's status.
import type pg from 'pg';
import type { Caller } from '../accounts/gate.js';
import { accountUsage, type AccountUsage } from '../accounts/usage.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { datasetState, datasetStatus, type DatasetState, type DatasetStatus } from '../registry/dataset.js';
import { createSearch, type Search } from '../search/index.js';

/** The dataset's state, re-read at most every few seconds (it only changes when an import lands). */
export class DatasetInfo {
  private cached: { at: number; state: DatasetState } | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly ttlMs = 5000,
  ) {}

  async state(): Promise<DatasetState> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > this.ttlMs)
      this.cached = { at: now, state: await datasetState(this.pool) };
    return this.cached.state;
  }

  async status(): Promise<DatasetStatus> {
    return datasetStatus((await this.state()).refreshed_at, this.clock.now());
  }

  /** Forget the cached state (after an import in this process). */
  invalidate(): void {
    this.cached = null;
  }
}

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
