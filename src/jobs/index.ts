// Every scheduled job of the service (docs/contract.md, "Operations").
import { ACCOUNT_JOBS } from '../accounts/jobs.js';
import { BILLING_JOBS } from '../billing/jobs.js';
import { MONITORING_JOBS } from '../monitoring/jobs.js';
import { refreshJob } from '../registry/refresh/job.js';
import type { Job } from './job.js';

export const JOBS: readonly Job[] = [refreshJob, ...ACCOUNT_JOBS, ...BILLING_JOBS, ...MONITORING_JOBS];

export function findJob(name: string): Job {
  const job = JOBS.find((j) => j.name === name);
  if (!job) throw new Error(`no job ${name} (one of ${JOBS.map((j) => j.name).join(', ')})`);
  return job;
}
