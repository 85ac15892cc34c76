// The snapshots' worker of a process (docs/operations.md, "Bulk snapshots"): run where the exports' is, by every
// instance with background slots and `registry worker`.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Worker } from '../jobs/worker-loop.js';
import { snapshotDir, startSnapshotWorker } from '../snapshots/runner.js';

/** Null when the configuration gives this process no slot (MATCH_JOB_SLOTS=0: no background work) or SNAPSHOTS=0. */
export function startSnapshots(
  pool: pg.Pool,
  config: Config,
  clock: Clock,
  log: (line: string) => void,
): Worker | null {
  if (config.matchJobSlots === 0 || !config.snapshots) return null;
  return startSnapshotWorker({ pool, dir: snapshotDir(config), now: () => clock.now(), log });
}
