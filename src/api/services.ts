// What handlers may use: the search module's queries, account reads and the dataset's status.
import type pg from 'pg';
import type { Caller } from '../accounts/gate.js';
import { accountUsage, type AccountUsage } from '../accounts/usage.js';
import type { Clock } from '../clock.js';
import type { Database } from '../db/index.js';
import { DatasetInfo } from '../registry/dataset-info.js';
import { ChangeFeed } from '../registry/feed/read.js';
import { FeedWatcher } from '../registry/feed/watch.js';
import { createSearch, type Search } from '../search/index.js';
import { CursorCodec } from './cursor.js';
import { SignedLinks } from './signed-links.js';

export interface Services {
  readonly search: Search;
  readonly dataset: DatasetInfo;
  usage(caller: Caller): Promise<AccountUsage>;
  /** Monitoring's store is on the primary (its writes and the events of the imports). */
  readonly monitoring: { readonly pool: pg.Pool; readonly allowPrivate: boolean };
  /** Match jobs are written on the primary (their rows, results and charges). */
  readonly jobs: pg.Pool;
  /**
   * Reconciliation credentials are written on the primary, hashed under the keys' pepper; `baseUrl` is where
   * clients reach the service (PUBLIC_BASE_URL), for the service URL a new credential is shown with.
   */
  /** Exports are written on the primary; their download links signed under a key derived from the pepper. */
  readonly exports: { readonly pool: pg.Pool; readonly links: SignedLinks };
  /** Bulk snapshots are recorded on the primary, their files in `dir`; their links signed like exports'. */
  readonly snapshots: { readonly pool: pg.Pool; readonly links: SignedLinks; readonly dir: string };
  /**
   * The change feed, read where the searches read (the replica, when one is configured: it applies the imports'
   * commits in their order), its watcher for the streams, and where the streams' leases are written (the primary).
   */
  readonly changes: { readonly feed: ChangeFeed; readonly watcher: FeedWatcher; readonly leases: pg.Pool };
  /** Signs and reads the cursors of list pages (under a key derived from the keys' pepper). */
  readonly cursors: CursorCodec;
  readonly credentials: {
    readonly pool: pg.Pool;
    readonly pepper: string;
    readonly clock: Clock;
    readonly baseUrl: string;
  };
}

export function createServices(
  db: Database,
  clock: Clock,
  opts: { pepper: string; baseUrl: string; snapshotDir: string; allowPrivateWebhooks?: boolean },
): Services {
  const dataset = new DatasetInfo(db.pool, clock);
  const feed = new ChangeFeed(db.readPool);
  return {
    search: createSearch(db.readPool, async () => (await dataset.state()).version),
    dataset,
    usage: (caller) => accountUsage(db.pool, caller, clock.now()),
    monitoring: { pool: db.pool, allowPrivate: opts.allowPrivateWebhooks ?? false },
    jobs: db.pool,
    changes: { feed, watcher: new FeedWatcher(() => feed.newest()), leases: db.pool },
    cursors: new CursorCodec(opts.pepper),
    exports: {
      pool: db.pool,
      links: new SignedLinks(opts.pepper, 'export-download', (id) => `${opts.baseUrl}/v1/exports/${id}/download`),
    },
    snapshots: {
      pool: db.pool,
      links: new SignedLinks(opts.pepper, 'snapshot-download', (file) => `${opts.baseUrl}/v1/snapshots/${file}`),
      dir: opts.snapshotDir,
    },
    credentials: { pool: db.pool, pepper: opts.pepper, clock, baseUrl: opts.baseUrl },
  };
}
