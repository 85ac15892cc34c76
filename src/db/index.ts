// The service's database: the configured PostgreSQL, or the embedded one, migrated and pooled.
import type { Config } from '../config/index.js';
import { startEmbedded } from './embedded.js';
import { INSTANCE_ID, InstanceHolder } from './instance.js';
import { migrate } from './migrate.js';
import { createPool, type Pool } from './pool.js';
import { REPLICA_CONNECT_TIMEOUT_MS, withPrimaryFallback } from './read-pool.js';

export interface Database {
  /** Writes and consistent reads (the primary). */
  readonly pool: Pool;
  /**
   * Requests' reads, which may lag a little: a replica when READ_DATABASE_URL is set, else the
   * primary; its own connections either way, whose statements stop after QUERY_TIMEOUT_MS (imports
   * and billing on `pool` have no such limit).
   */
  readonly readPool: Pool;
  readonly embedded: boolean;
  close(): Promise<void>;
}

export interface OpenOptions {
  poolSize?: number;
  /** A server: it names its connections and holds its instance lock (src/db/instance.ts). */
  instance?: boolean;
  /** Readies the schema before any other use (default: the migrations alone). */
  prepare?: (pool: Pool) => Promise<void>;
}

/**
 * Opens the service's database. A server (`instance`) names its connections and holds its instance
 * lock (src/db/instance.ts) so that the reservations of its requests are released as soon as it dies.
 */
export async function openDatabase(config: Config, opts: OpenOptions = {}): Promise<Database> {
  const server = config.databaseUrl ? null : await startEmbedded(config.dataDir, { port: config.embeddedPgPort });
  const url = config.databaseUrl ?? server!.url;
  const size = opts.poolSize ?? config.dbPoolSize;
  const pool = createPool(url, size, { instance: opts.instance ? INSTANCE_ID : null });
  const holder = opts.instance ? new InstanceHolder(url) : null;
  try {
    await (opts.prepare ?? migrate)(pool);
    await holder?.start();
  } catch (err) {
    await pool.end();
    await server?.stop();
    throw err;
  }
  const reads = { applicationName: 'registry-lookup-read', statementTimeoutMs: config.queryTimeoutMs };
  const primaryReads = createPool(url, size, reads);
  // On a replica, reads fall back to the primary while it does not answer (src/db/read-pool.ts).
  const replicaReads = config.readDatabaseUrl
    ? createPool(config.readDatabaseUrl, size, { ...reads, connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS })
    : null;
  const readPool = replicaReads ? withPrimaryFallback(replicaReads, primaryReads) : primaryReads;
  return {
    pool,
    readPool,
    embedded: server !== null,
    async close() {
      await replicaReads?.end();
      await primaryReads.end();
      await pool.end();
      await holder?.stop();
      await server?.stop();
    },
  };
}
