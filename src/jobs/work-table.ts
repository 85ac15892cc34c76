// The tables of background work (match_jobs, exports) share their columns of state: `workspace_id`, `status`,
// `created_at`, `finished_at` and `claimed_by` (the instance holding a row, src/db/instance.ts). What any such table is
// asked by that state is here; what a row holds is its domain's.
import type pg from 'pg';

export type WorkTable = 'match_jobs' | 'exports';

/**
 * Claims for `worker` the oldest open row of `table` whose worker is gone (or that none has yet), answering
 * `returning` of it.
 */
export async function claimOldest<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  table: WorkTable,
  worker: number,
  now: Date,
  returning: string,
): Promise<R | null> {
  const { rows } = await pool.query<R>(
    `UPDATE ${table} w SET claimed_by = $1, status = 'running', started_at = coalesce(w.started_at, $2)
     WHERE w.id = (SELECT id FROM ${table}
                   WHERE status IN ('queued', 'running')
                     AND (claimed_by IS NULL OR NOT reservation_holder_alive(claimed_by))
                   ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING ${returning}`,
    [worker, now],
  );
  return rows[0] ?? null;
}

/** Lets go of the rows of `table` that `worker` holds, so that another may claim them at once. */
export async function releaseClaims(pool: pg.Pool, table: WorkTable, worker: number): Promise<void> {
  await pool.query(`UPDATE ${table} SET claimed_by = NULL WHERE claimed_by = $1 AND status = 'running'`, [worker]);
}

/** A page of the workspace's rows of `table` (`columns` of each), newest first, and how many it has. */
export async function workspacePage<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  table: WorkTable,
  columns: string,
  workspace: string,
  page: { limit: number; offset: number },
): Promise<{ rows: R[]; total: number }> {
  const [{ rows }, count] = await Promise.all([
    pool.query<R>(
      `SELECT ${columns} FROM ${table} WHERE workspace_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
      [workspace, page.limit, page.offset],
    ),
    pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspace]),
  ]);
  return { rows, total: count.rows[0]!.n };
}

/** Cancels the workspace's row `id` of `table` if it is queued or running: its worker stops at its next chunk. */
export async function cancelOpen(pool: pg.Pool, table: WorkTable, workspace: string, id: string, now: Date) {
  await pool.query(
    `UPDATE ${table} SET status = 'cancelled', finished_at = $3
     WHERE workspace_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
    [workspace, id, now],
  );
}
