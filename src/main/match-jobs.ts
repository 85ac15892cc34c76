// The match jobs' worker wired to this process's search and instance (docs/matching.md, "Jobs").
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { INSTANCE_ID } from '../db/instance.js';
import { startJobWorker, type JobWorker } from '../matching/runner.js';
import type { AlgorithmName, Search } from '../search/index.js';

/** Null when the configuration gives this process no slot (MATCH_JOB_SLOTS=0). */
export function startMatchJobs(
  pool: pg.Pool,
  search: Search,
  config: Config,
  clock: Clock,
  log: (line: string) => void,
): JobWorker | null {
  if (config.matchJobSlots === 0) return null;
  return startJobWorker(
    {
      pool,
      match: (queries, opts) =>
        search.match(queries, { limit: opts.limit, algorithm: opts.algorithm as AlgorithmName }),
      worker: INSTANCE_ID,
      now: () => clock.now(),
      log,
    },
    config.matchJobSlots,
  );
}
