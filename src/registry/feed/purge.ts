// The change feed is kept a year (docs/contract.md, "Change feed"): a daily job deletes the changes of the files
// imported longer ago, oldest first, and records up to which number and import time it did, so that a position
// before them is refused (410) rather than read on across a gap.
import type pg from 'pg';
import { inTransaction } from '../../db/pool.js';
import type { Job } from '../../jobs/job.js';

/** Changes are kept this many days after their import: a year promised, and the day a leap year has more. */
export const CHANGE_RETENTION_DAYS = 366;

/** Deletes the changes of the files imported more than CHANGE_RETENTION_DAYS before `asOf`. */
export async function purgeChanges(pool: pg.Pool, asOf: Date): Promise<{ changes_deleted: number }> {
  return inTransaction(pool, async (client) => {
    // Files are numbered in import order: the old ones are the lowest numbers, deleted as one prefix.
    const { rows } = await client.query<{ through: string | null; until: Date | null }>(
      `SELECT max(last_sequence) AS through, max(imported_at) AS until FROM registry.change_files
       WHERE imported_at < $1::timestamptz - make_interval(days => $2)`,
      [asOf, CHANGE_RETENTION_DAYS],
    );
    const { through, until } = rows[0]!;
    if (through === null) return { changes_deleted: 0 };
    const { rowCount } = await client.query('DELETE FROM registry.changes WHERE sequence <= $1', [through]);
    await client.query('DELETE FROM registry.change_files WHERE last_sequence <= $1', [through]);
    await client.query(
      `UPDATE registry.change_state SET purged_through = greatest(purged_through, $1),
         purged_until = greatest(purged_until, $2)`,
      [through, until],
    );
    return { changes_deleted: rowCount ?? 0 };
  });
}

export const FEED_JOBS: readonly Job[] = [
  {
    name: 'change_purge',
    schedule: '20 0 * * *',
    description: `deletes change-feed rows imported more than ${CHANGE_RETENTION_DAYS} days ago (daily, 00:20 UTC)`,
    run: ({ pool, asOf }) => purgeChanges(pool, asOf),
  },
];
