// Match jobs are kept 30 days after they end (docs/matching.md, "Jobs"): a million rows and their results a job.
import type { Job } from '../jobs/job.js';
import { purgeEnded } from '../jobs/purge-ended.js';

export const MATCHING_JOBS: readonly Job[] = [
  purgeEnded({
    name: 'match_job_purge',
    table: 'match_jobs',
    what: 'match jobs (their rows and results)',
    keptDays: 30,
    schedule: '50 0 * * *',
    at: '00:50',
  }),
];
