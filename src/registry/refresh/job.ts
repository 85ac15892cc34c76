// The `refresh` job: early every morning UTC (the registry posts a workday's files by then), at
// startup to catch up, and again with growing waits after a failed run until one succeeds.
import type { Job } from '../../jobs/job.js';
import type { ImportObserver } from '../import/observer.js';
import { runRefresh } from './run.js';

/** After a failed run: 15 minutes, then 30, 1 h, 2 h, and every 4 h until a run succeeds. */
export const refreshRetryDelayMs = (failures: number): number =>
  Math.min(15 * 60_000 * 2 ** (failures - 1), 4 * 3_600_000);

/** The job, its imports told to `observer` (the composition root's, src/main/jobs.ts). */
export const refreshJob = (observer?: ImportObserver): Job => ({
  name: 'refresh',
  schedule: '0 5 * * *',
  description:
    "fetches the registry's new files from REGISTRY_SOURCE and applies them " +
    '(daily, 05:00 UTC; after a failure retried in 15 min, 30 min, 1 h, ... 4 h)',
  atStartup: true,
  enabled: (config) => config.registrySource !== null,
  retryDelayMs: refreshRetryDelayMs,
  run: ({ pool, config, clock, log, runId }) =>
    runRefresh({ pool, config, clock, log, observer, ...(runId !== undefined ? { runId } : {}) }),
});
