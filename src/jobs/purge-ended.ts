// Background work kept a while after it ends (match jobs, exports): a daily job deletes what ended longer ago, with
// all that hangs on it (rows, results, file parts).
import type { Job } from './job.js';
import type { WorkTable } from './work-table.js';

export function purgeEnded(o: {
  readonly name: string;
  readonly table: WorkTable;
  /** What a row is, in the plural (the description and the count's name). */
  readonly what: string;
  readonly keptDays: number;
  /** Cron expression, in UTC. */
  readonly schedule: string;
  readonly at: string;
}): Job {
  return {
    name: o.name,
    schedule: o.schedule,
    description: `deletes ${o.what} ended more than ${o.keptDays} days ago (daily, ${o.at} UTC)`,
    async run({ pool, asOf }) {
      const { rowCount } = await pool.query(
        `DELETE FROM ${o.table} WHERE status IN ('completed', 'failed', 'cancelled')
           AND finished_at < $1::timestamptz - make_interval(days => $2)`,
        [asOf, o.keptDays],
      );
      return { [`${o.table}_deleted`]: rowCount ?? 0 };
    },
  };
}
