// Connection pools: one for writes and reads by default, plus an optional read pool on a replica.
import pg from 'pg';
import { INSTANCE_LOCK_SQL } from './instance.js';

// DATE columns come back as 'YYYY-MM-DD' strings, never as local-time Date objects.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);
// int8 (counts, sums) fits a JS number for every value this service produces.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
type PoolClient = pg.PoolClient;

export interface PoolOptions {
  readonly applicationName?: string;
  /** PostgreSQL stops a statement after this long (0: never). */
  readonly statementTimeoutMs?: number;
  /** The server instance its connections act for (src/db/instance.ts). */
  readonly instance?: number | null;
  /** A connection not made within this long fails (0: wait as long as it takes). */
  readonly connectTimeoutMs?: number;
}

export function createPool(url: string, max: number, opts: PoolOptions = {}): pg.Pool {
  const { applicationName = 'registry-lookup', statementTimeoutMs = 0, instance = null } = opts;
  // An explicit search_path: the default "$user" would pick a schema named like the login role.
  const named = instance === null ? '' : ` -c registry.instance=${Math.trunc(instance)}`;
  const options = `-c search_path=public -c statement_timeout=${Math.trunc(statementTimeoutMs)}${named}`;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: applicationName,
    options,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 0,
    // Awaited before the client's first user gets it: a reservation is never made without the instance's lock.
    ...(instance === null ? {} : { onConnect: (client: pg.ClientBase) => client.query(INSTANCE_LOCK_SQL, [instance]) }),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor one held across other work (a job's or an import's lock session, a transaction) while PostgreSQL restarts:
  // its next statement fails instead, and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** PostgreSQL's connection-exception class (08) and its shutdown and starting-up states (57P01-57P03). */
const UNAVAILABLE_SQLSTATE = /^(08|57P0[123])/;
/** Node's socket errors and node-postgres's own messages for a connection that is gone or never came. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect/i;

/** An error saying the database cannot be reached (as opposed to a failed statement). */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_CODES.has(e.code))) return true;
  return typeof e?.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message);
}

/** PostgreSQL stopped the statement: its statement_timeout passed (or it was cancelled). */
export const isQueryCanceled = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '57014';

/** Runs `work` in one transaction on a dedicated client, committing on success and rolling back on error. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
