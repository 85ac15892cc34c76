// Requests' reads on a streaming replica (READ_DATABASE_URL), falling back to the primary while the
// replica cannot be reached: a stopped replica costs the searches nothing but its own freshness. The
// replica is tried again after REPLICA_RETRY_MS, and reads return to it as soon as it answers.
import type pg from 'pg';
import { isDatabaseUnavailable } from './pool.js';

/** After the replica failed to answer, reads go to the primary for this long before trying it again. */
export const REPLICA_RETRY_MS = 1_000;
/** A replica that does not accept a connection within this long counts as unreachable. */
export const REPLICA_CONNECT_TIMEOUT_MS = 1_000;

/**
 * The replica's pool, whose `query` goes to `primary` (a pool of the primary with the same statement
 * timeout) while the replica is unreachable. Everything else is the replica pool's own.
 */
export function withPrimaryFallback(replica: pg.Pool, primary: pg.Pool, now = Date.now): pg.Pool {
  let downUntil = 0;
  const query = async (...args: unknown[]): Promise<unknown> => {
    const ask = (pool: pg.Pool): Promise<unknown> => (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
    if (now() < downUntil) return ask(primary);
    try {
      return await ask(replica);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      downUntil = now() + REPLICA_RETRY_MS;
      return ask(primary);
    }
  };
  return new Proxy(replica, {
    get: (target, prop, receiver) => (prop === 'query' ? query : Reflect.get(target, prop, receiver)),
  });
}
