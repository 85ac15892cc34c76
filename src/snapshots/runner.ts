// The snapshots' worker (docs/contract.md, "Bulk snapshots"; docs/operations.md, "Bulk snapshots"): every API
// instance and `registry worker` runs one beside the exports'. Once an import run has ended and the dataset's version
// has no completed snapshot, the worker that takes the importer's lock reads the whole dataset in one consistent
// snapshot, writes its files into `<dir>/<id>.partial/`, renames that to `<dir>/<id>/` and completes the row. A worker
// that dies lets go of the lock with its connection; the next takes the same version up again from the start. Only
// the newest SNAPSHOTS_KEPT are kept.
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from '../config/index.js';
import { startWorkLoop, type Worker } from '../jobs/worker-loop.js';
import { openRecords, type RecordRead } from '../registry/feed/records.js';
import { beginSnapshot, completeSnapshot, keepNewest, versionToSnapshot } from './store.js';
import { writeSnapshotFiles } from './write.js';

/**
 * Completed snapshots kept: a mirror's download begun on the newest has two more imports' time to end, and each is
 * some 3.5 GB on disk at the full registry's size (docs/operations.md).
 */
export const SNAPSHOTS_KEPT = 3;

/** One loop a process: a snapshot reads the whole dataset, and the importer's lock lets one run at a time anyway. */
const SNAPSHOT_SLOTS = 1;

export interface SnapshotWorkerDeps {
  readonly pool: pg.Pool;
  /** Where the snapshots' directories are (DATA_DIR/snapshots). */
  readonly dir: string;
  readonly now: () => Date;
  readonly log: (line: string) => void;
}

interface Claimed {
  readonly id: string;
  readonly read: RecordRead;
}

async function claim(deps: SnapshotWorkerDeps): Promise<Claimed | null> {
  // The cheap look first: most polls find the newest version done.
  if ((await versionToSnapshot(deps.pool)) === null) return null;
  const read = await openRecords(deps.pool);
  if (!read) return null;
  try {
    const begun = await beginSnapshot(deps.pool, read.at, deps.now());
    if (!begun) {
      await read.close();
      return null;
    }
    for (const id of begun.dropped) await rm(path.join(deps.dir, id), { recursive: true, force: true });
    return { id: begun.id, read };
  } catch (err) {
    await read.close().catch(() => {});
    throw err;
  }
}

/** Deletes the snapshots past the newest SNAPSHOTS_KEPT, and every directory that is not a kept one's. */
async function purge(deps: SnapshotWorkerDeps): Promise<void> {
  const kept = new Set(await keepNewest(deps.pool, SNAPSHOTS_KEPT));
  for (const entry of await readdir(deps.dir))
    if (!kept.has(entry)) await rm(path.join(deps.dir, entry), { recursive: true, force: true });
}

async function run(deps: SnapshotWorkerDeps, job: Claimed, stopping: () => boolean): Promise<void> {
  const partial = path.join(deps.dir, `${job.id}.partial`);
  try {
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    const started = Date.now();
    const files = await writeSnapshotFiles(job.read, partial, stopping);
    if (!files) return;
    const final = path.join(deps.dir, job.id);
    await rm(final, { recursive: true, force: true });
    await rename(partial, final);
    await completeSnapshot(deps.pool, job.id, files, deps.now());
    await purge(deps);
    const rows = files.filter((f) => f.format === 'jsonl').map((f) => `${f.rows} ${f.table}`);
    deps.log(`snapshot ${job.id} of version ${job.read.at.version}: ${rows.join(', ')} in ${Date.now() - started} ms`);
  } finally {
    await job.read.close();
  }
}

/** Runs the snapshot loop in this process. */
export function startSnapshotWorker(deps: SnapshotWorkerDeps): Worker {
  return startWorkLoop(
    {
      name: 'snapshot',
      claim: () => claim(deps),
      run: (job, stopping) => run(deps, job, stopping),
      // Nothing is held between runs: a run's lock ends with it.
      release: async () => {},
      log: deps.log,
    },
    SNAPSHOT_SLOTS,
  );
}

/** Where a configuration's snapshots are: DATA_DIR/snapshots (one directory every instance shares). */
export const snapshotDir = (config: Config): string => path.join(config.dataDir, 'snapshots');
