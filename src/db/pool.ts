// Connection pools: one for writes and reads by default, plus an optional read pool on a replica.
import pg from 'pg';

// DATE columns come back as 'YYYY-MM-DD' strings, never as local-time Date objects.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);
// int8 (counts, sums) fits a JS number for every value this service produces.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export function createPool(
  url: string,
  max: number,
  applicationName = 'registry-lookup',
  statementTimeoutMs = 0,
  /** The server instance its connections act for (src/db/instance.ts). */
  instance: number | null = null,
): pg.Pool {
  // An explicit search_path: the default "$user" would pick a schema named like the login role.
  const named = instance === null ? '' : ` -c registry.instance=${Math.trunc(instance)}`;
  const options = `-c search_path=public -c statement_timeout=${Math.trunc(statementTimeoutMs)}${named}`;
  const pool = new pg.Pool({ connectionString: url, max, application_name: applicationName, options });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
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
