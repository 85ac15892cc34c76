// Every scheduled job of the service (docs/contract.md, "Operations"), each domain's own, wired here:
// the refresh's imports are told to monitoring like any import (importer.ts).
import { ACCOUNT_JOBS } from '../accounts/jobs.js';
import { BILLING_JOBS } from '../billing/jobs.js';
import type { Job } from '../jobs/job.js';
import { MATCHING_JOBS } from '../matching/purge.js';
import { EXPORT_JOBS } from '../exports/purge.js';
import { MONITORING_JOBS } from '../monitoring/jobs.js';
import { monitoringObserver } from '../monitoring/observer.js';
import { FEED_JOBS } from '../registry/feed/purge.js';
import { refreshJob } from '../registry/refresh/job.js';

export const JOBS: readonly Job[] = [
  refreshJob(monitoringObserver),
  ...FEED_JOBS,
  ...ACCOUNT_JOBS,
  ...BILLING_JOBS,
  ...MONITORING_JOBS,
  ...MATCHING_JOBS,
  ...EXPORT_JOBS,
];

export function findJob(name: string): Job {
  const job = JOBS.find((j) => j.name === name);
  if (!job) throw new Error(`no job ${name} (one of ${JOBS.map((j) => j.name).join(', ')})`);
  return job;
}
