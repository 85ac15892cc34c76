// The running service: database (embedded when no DATABASE_URL), sample data and a demo workspace
// on first start, the HTTP app, the job scheduler, webhook delivery, and a clean stop on SIGINT/SIGTERM.
import type { PlanSlug } from '../accounts/catalog.js';
import { startOrphanSweeper } from '../accounts/orphan-sweeper.js';
import { resolvePepper } from '../accounts/pepper.js';
import { createWorkspace } from '../accounts/workspaces.js';
import { buildApp, type App } from './app.js';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { openServiceDatabase } from './database.js';
import type { Database } from '../db/index.js';
import { hugePagesAdvice } from '../db/tuning.js';
import { heapLine } from '../config/heap.js';
import { JOBS } from './jobs.js';
import { startScheduler } from '../jobs/scheduler.js';
import { startWebhookDelivery } from '../monitoring/delivery-loop.js';
import { startExports } from './exports.js';
import { startSnapshots } from './snapshots.js';
import { startMatchJobs } from './match-jobs.js';
import { seedSample, type SeededSample, type SeedReport } from '../sample/seed.js';

/** What this start did for a newcomer: the sample it loaded and the demo workspace it made (each once). */
interface FirstStart {
  readonly sample: SeededSample | null;
  readonly demo: { readonly workspaceId: string; readonly plan: PlanSlug; readonly key: string } | null;
}

export interface RunningServer {
  readonly app: App;
  readonly db: Database;
  readonly url: string;
  readonly firstStart: FirstStart;
  stop(): Promise<void>;
}

/** Where a start reports: lines for the operator, and the sample seeding's progress and detail. */
export interface StartOutput {
  log(line: string): void;
  readonly seeding: SeedReport;
}

/** Lines only: the seeding's detail goes to its log file alone (tests, and callers without a terminal). */
export const linesOnly = (log: (line: string) => void): StartOutput => ({
  log,
  seeding: { phase() {}, progress() {}, detail() {}, finish() {} },
});

const DEMO_PLAN: PlanSlug = 'pro';

/** On a database without workspaces (outside production): a pro workspace to try the API with. */
async function demoWorkspace(db: Database, config: Config, pepper: string, clock: Clock): Promise<FirstStart['demo']> {
  if (config.production) return null;
  const { rows } = await db.pool.query('SELECT 1 FROM workspaces LIMIT 1');
  if (rows.length > 0) return null;
  const { workspace, key } = await createWorkspace(db.pool, { plan: DEMO_PLAN, name: 'demo' }, pepper, clock);
  return { workspaceId: workspace.id, plan: DEMO_PLAN, key: key.key };
}

export async function startServer(
  config: Config,
  out: StartOutput,
  clock: Clock = systemClock,
): Promise<RunningServer> {
  const { log } = out;
  const db = await openServiceDatabase(config, { instance: true });
  let app: App | null = null;
  try {
    // With a registry source, the refresh (at startup, then daily) loads the real files instead.
    const sample =
      db.embedded && config.sample.enabled && !config.registrySource
        ? await seedSample(db.pool, config, out.seeding)
        : null;
    for (const advice of [await hugePagesAdvice(db.pool), heapLine()]) if (advice) log(advice);
    const pepper = await resolvePepper(config);
    const demo = await demoWorkspace(db, config, pepper, clock);
    const built = await buildApp({ config, db, pepper, clock, notify: log });
    app = built;
    const url = await built.http.listen({ host: config.host, port: config.port });
    // Only once the server listens: jobs (and deliveries) started before a failed listen (a port in use) ran on
    // into the closed pool and logged failures of their own after the start had already failed.
    const scheduler = config.schedulerEnabled
      ? startScheduler(
          JOBS.filter((j) => j.enabled?.(config) ?? true),
          (asOf) => ({ pool: db.pool, config, clock, asOf, log }),
          clock,
          log,
        )
      : null;
    const delivery = config.webhooks.deliver ? startWebhookDelivery(db.pool, config, log) : null;
    const jobs = startMatchJobs(db.pool, built.services.search, config, clock, log);
    const exports = startExports(db.pool, built.services, config, clock, log);
    const snapshots = startSnapshots(db.pool, config, clock, log);
    const sweeper = startOrphanSweeper(db.pool, clock, (err) =>
      built.http.log.warn({ err }, 'releasing the reservations of dead instances failed'),
    );
    let stopping: Promise<void> | null = null;
    return {
      app: built,
      db,
      url,
      firstStart: { sample, demo },
      stop: () =>
        (stopping ??= (async () => {
          await built.http.close();
          await sweeper.stop();
          await scheduler?.stop();
          await delivery?.stop();
          await jobs?.stop();
          await exports?.stop();
          await snapshots?.stop();
          await db.close();
        })()),
    };
  } catch (err) {
    // The app's own hooks write through the pool: it closes first.
    await app?.http.close();
    await db.close();
    throw err;
  }
}
