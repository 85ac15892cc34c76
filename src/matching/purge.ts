// Match jobs are kept 30 days after they end (docs/matching.md, "Jobs"): a million rows and their results a job.
import type { Job } from '../jobs/job.js';

/** How long an ended job, its rows and results stay downloadable. */
const KEPT_DAYS = 30;

const matchJobPurgeJob: Job = {
  name: 'match_job_purge',
  schedule: '50 0 * * *',
  description: `deletes match jobs (their rows and results) ended more than ${KEPT_DAYS} days ago (daily, 00:50 UTC)`,
  async run({ pool, asOf }) {
    const { rowCount } = await pool.query(
      `DELETE FROM match_jobs WHERE status IN ('completed', 'failed', 'cancelled')
         AND finished_at < $1::timestamptz - make_interval(days => $2)`,
      [asOf, KEPT_DAYS],
    );
    return { jobs_deleted: rowCount ?? 0 };
  },
};

export const MATCHING_JOBS: readonly Job[] = [matchJobPurgeJob];
