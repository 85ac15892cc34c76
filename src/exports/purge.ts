// Exports are kept 7 days after they end (docs/exports.md): their files can be as large as the registry.
import type { Job } from '../jobs/job.js';

/** How long an ended export and its file stay downloadable. */
const EXPORT_KEPT_DAYS = 7;

const exportPurgeJob: Job = {
  name: 'export_purge',
  schedule: '55 0 * * *',
  description: `deletes exports (and their files) ended more than ${EXPORT_KEPT_DAYS} days ago (daily, 00:55 UTC)`,
  async run({ pool, asOf }) {
    const { rowCount } = await pool.query(
      `DELETE FROM exports WHERE status IN ('completed', 'failed', 'cancelled')
         AND finished_at < $1::timestamptz - make_interval(days => $2)`,
      [asOf, EXPORT_KEPT_DAYS],
    );
    return { exports_deleted: rowCount ?? 0 };
  },
};

export const EXPORT_JOBS: readonly Job[] = [exportPurgeJob];
