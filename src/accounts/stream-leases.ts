// How many change streams a workspace holds open (docs/contract.md, "Change feed"): at most its plan's number,
// counted over every instance. Each open stream holds a lease that it renews while it runs, so that the stream of
// a process that died stops counting once its lease runs out.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';

/** A lease lasts this long unless renewed: a stream renews it at every heartbeat, well before. */
export const STREAM_LEASE_MS = 60_000;

/** Takes a lease for stream `id` unless the workspace holds `max` already; true when taken. */
export async function takeStreamLease(
  pool: pg.Pool,
  s: { readonly workspace: string; readonly id: string; readonly max: number },
  now: Date,
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    // One taker of a workspace at a time: the count and the insert make one decision.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`change_streams ${s.workspace}`]);
    await client.query('DELETE FROM change_streams WHERE workspace_id = $1 AND expires_at <= $2', [s.workspace, now]);
    const { rowCount } = await client.query(
      `INSERT INTO change_streams (id, workspace_id, started_at, expires_at)
       SELECT $1, $2, $3, $3::timestamptz + make_interval(secs => $4)
       WHERE (SELECT count(*) FROM change_streams WHERE workspace_id = $2) < $5`,
      [s.id, s.workspace, now, STREAM_LEASE_MS / 1000, s.max],
    );
    return rowCount === 1;
  });
}

/** Renews an open stream's lease from `now`. */
export async function renewStreamLease(pool: pg.Pool, id: string, now: Date): Promise<void> {
  await pool.query('UPDATE change_streams SET expires_at = $2::timestamptz + make_interval(secs => $3) WHERE id = $1', [
    id,
    now,
    STREAM_LEASE_MS / 1000,
  ]);
}

/** A stream's end gives its lease back. */
export async function dropStreamLease(pool: pg.Pool, id: string): Promise<void> {
  await pool.query('DELETE FROM change_streams WHERE id = $1', [id]);
}
