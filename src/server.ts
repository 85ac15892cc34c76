// The running service: database (embedded when no DATABASE_URL), sample data and a demo workspace
// on first start, the HTTP app, the job scheduler, and a clean stop on SIGINT/SIGTERM.
import { resolvePepper } from './accounts/pepper.js';
import { createWorkspace } from './accounts/workspaces.js';
import { buildApp, type App } from './api/app.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config/index.js';
import { openDatabase, type Database } from './db/index.js';
import { hugePagesAdvice } from './db/tuning.js';
import { JOBS } from './jobs/index.js';
import { startScheduler } from './jobs/scheduler.js';
import { seedSample } from './registry/sample.js';

export interface RunningServer {
  readonly app: App;
  readonly db: Database;
  readonly url: string;
  stop(): Promise<void>;
}

/** On a database without workspaces (outside production): a pro workspace to try the API with. */
async function demoWorkspace(
  db: Database,
  config: Config,
  pepper: string,
  clock: Clock,
  log: (line: string) => void,
): Promise<void> {
  if (config.production) return;
  const { rows } = await db.pool.query('SELECT 1 FROM workspaces LIMIT 1');
  if (rows.length > 0) return;
  const { workspace, key } = await createWorkspace(db.pool, { plan: 'pro', name: 'demo' }, pepper, clock);
  log(`created the demo workspace ${workspace.id} on the pro plan; its API key (shown once): ${key.key}`);
}

export async function startServer(
  config: Config,
  log: (line: string) => void,
  clock: Clock = systemClock,
): Promise<RunningServer> {
  const db = await openDatabase(config);
  let app: App | null = null;
  try {
    const advice = await hugePagesAdvice(db.pool);
    if (advice) log(advice);
    // With a registry source, the refresh (at startup, then daily) loads the real files instead.
    if (db.embedded && config.sample.enabled && !config.registrySource) {
      const seeded = await seedSample(db.pool, config, { log });
      if (seeded)
        log(
          `sample dataset loaded: ${seeded.dataset.entities} entities, ${seeded.totals.records_rejected} malformed lines rejected`,
        );
    }
    const pepper = await resolvePepper(config);
    await demoWorkspace(db, config, pepper, clock, log);
    const built = await buildApp({ config, db, pepper, clock });
    app = built;
    const url = await built.http.listen({ host: config.host, port: config.port });
    // Only once the server listens: jobs started before a failed listen (a port in use) ran on into
    // the closed pool and logged failures of their own after the start had already failed.
    const scheduler = config.schedulerEnabled
      ? startScheduler(
          JOBS.filter((j) => j.enabled?.(config) ?? true),
          (asOf) => ({ pool: db.pool, config, clock, asOf, log }),
          clock,
          log,
        )
      : null;
    let stopping: Promise<void> | null = null;
    return {
      app: built,
      db,
      url,
      stop: () =>
        (stopping ??= (async () => {
          await built.http.close();
          await scheduler?.stop();
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
