// The application on a fresh test database, with a hand-moved clock, and helpers to call it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type pg from 'pg';
import { createWorkspace, type CreatedKey, type Workspace } from '../../src/accounts/workspaces.js';
import { buildApp, type App } from '../../src/main/app.js';
import type { PaymentProvider } from '../../src/billing/provider.js';
import { ManualClock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import type { Database } from '../../src/db/index.js';
import type { LimiterContext, RateLimiter } from '../../src/ratelimit/index.js';
import { testDatabase, type TestDatabase } from './database.js';

export const PEPPER = 'test-pepper';

export interface TestApp {
  readonly app: App;
  readonly db: TestDatabase;
  readonly database: Database;
  readonly clock: ManualClock;
  readonly config: Config;
  workspace(plan: string, name?: string): Promise<{ workspace: Workspace; key: CreatedKey }>;
  get(url: string, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** One credit reserved through the gate for a REST call of `key`, as a request's first stages take it. */
  reserve(key: string, requestId: string): ReturnType<App['gate']['check']>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  now?: string;
  /** Replaces the configured rate limiter (the context carries the app's failure counter). */
  limiter?: (clock: ManualClock, ctx: LimiterContext) => RateLimiter | Promise<RateLimiter>;
  env?: Record<string, string>;
  /** The payment provider (default: the configuration's). */
  payments?: (config: Config) => PaymentProvider;
  /** Where the server's log lines go (with `env.LOG_LEVEL` to have some). */
  logStream?: { write(line: string): void };
  /** Wraps the pool the searches read from (a test makes some of their statements fail). */
  readPool?: (pool: pg.Pool) => pg.Pool;
}

export async function testApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await testDatabase();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'rl-app-'));
  const clock = new ManualClock(opts.now ?? '2026-03-10T12:00:00Z');
  const config = loadConfig({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SCHEDULER: '0',
    ...opts.env,
  });
  const readPool = opts.readPool ? opts.readPool(db.pool) : db.pool;
  const database: Database = { pool: db.pool, readPool, embedded: false, close: async () => {} };
  const makeLimiter = opts.limiter;
  const app = await buildApp({
    config,
    db: database,
    pepper: PEPPER,
    clock,
    ...(makeLimiter ? { limiter: (ctx: LimiterContext) => makeLimiter(clock, ctx) } : {}),
    ...(opts.payments ? { payments: opts.payments(config) } : {}),
    ...(opts.logStream ? { logStream: opts.logStream } : {}),
  });
  return {
    app,
    db,
    database,
    clock,
    config,
    workspace: (plan, name) => createWorkspace(db.pool, { plan, ...(name ? { name } : {}) }, PEPPER, clock),
    reserve: (key, requestId) =>
      app.gate.check({ credential: { key }, surface: 'rest', reserve: true, leadFeed: false, csv: false, requestId }),
    get: (url, key, headers = {}) =>
      app.http.inject({ method: 'GET', url, headers: key ? { authorization: `Bearer ${key}`, ...headers } : headers }),
    async close() {
      await app.http.close();
      await db.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
