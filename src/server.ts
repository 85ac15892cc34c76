// The running service: database (embedded when no DATABASE_URL), sample data on first start,
// the HTTP app, and a clean stop on SIGINT/SIGTERM.
import type { FastifyInstance } from 'fastify';
import { resolvePepper } from './accounts/pepper.js';
import { buildApp } from './api/app.js';
import type { Config } from './config/index.js';
import { openDatabase, type Database } from './db/index.js';
import { seedSample } from './registry/sample.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly db: Database;
  readonly url: string;
  stop(): Promise<void>;
}

export async function startServer(config: Config, log: (line: string) => void): Promise<RunningServer> {
  const db = await openDatabase(config);
  try {
    if (db.embedded && config.sample.enabled) {
      const seeded = await seedSample(db.pool, config, { log });
      if (seeded) log(`sample dataset loaded: ${seeded.dataset.entities} entities, ${seeded.totals.records_rejected} malformed lines rejected`);
    }
    const { http: app } = await buildApp({ config, db, pepper: await resolvePepper(config) });
    const address = await app.listen({ host: config.host, port: config.port });
    let stopping: Promise<void> | null = null;
    return {
      app,
      db,
      url: address,
      stop: () =>
        (stopping ??= (async () => {
          await app.close();
          await db.close();
        })()),
    };
  } catch (err) {
    await db.close();
    throw err;
  }
}
