// `npm run bench:ratelimit`: what the per-minute limiter costs. The app serves a cheap metered
// route (GET /v1/account/usage: free, but authenticated and rate limited like every data route)
// for an enterprise workspace whose per-minute override is so high that nothing is refused. The
// same load (autocannon, one client, by default ~2,000 requests a second, then as fast as it goes)
// runs against the app with the limiter switched off (a store that counts nothing), with the
// in-process store and, when REDIS_URL is set, with the Redis store, in alternating rounds. It prints
// the median throughput and latency of each mode, the server's CPU time per request (which other
// load on the machine disturbs far less than throughput) and the overhead; it never fails on timing.
//
// Database: DATABASE_URL's server (a scratch database, dropped afterwards) or an embedded
// PostgreSQL under bench/work/ratelimit. Settings: BENCH_DURATION (seconds per run, 5),
// BENCH_ROUNDS (runs per mode, alternating, 5), BENCH_RATE (requests a second, 2000),
// BENCH_CONNECTIONS (10).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { cannon, type CannonRun } from './cannon.js';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { buildApp, type App } from '../src/main/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig, type Config } from '../src/config/index.js';
import { projectRoot } from '../src/config/paths.js';
import { openServiceDatabase } from '../src/main/database.js';
import { ManualClock } from '../src/clock.js';
import { MemoryRateLimiter, openWindow, rateLimitHeaders, type RateLimiter } from '../src/ratelimit/index.js';

const ROUTE = '/v1/account/usage';
const setting = (name: string, fallback: number): number => Number(process.env[name] || fallback);
const DURATION = setting('BENCH_DURATION', 5);
const ROUNDS = setting('BENCH_ROUNDS', 5);
const RATE = setting('BENCH_RATE', 2000);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 10);

/** The limiter switched off: every request allowed, nothing counted (the headers are still written). */
const switchedOff: RateLimiter = {
  hit: async (_key, limit) => openWindow(limit, Date.now()),
  peek: async (_key, limit) => openWindow(limit, Date.now()),
  close: async () => {},
};

/**
 * The limiter's own cost per request, free of the machine's noise: the in-process store and the
 * headers, at 2,000 requests a second of simulated time on one key (so that 120,000 requests sit in
 * the window and every call also expires one).
 */
async function storeCostMicros(calls: number): Promise<number> {
  const clock = new ManualClock('2026-01-01T00:00:00Z');
  const limiter = new MemoryRateLimiter(clock);
  const run = async (n: number): Promise<number> => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      rateLimitHeaders(await limiter.hit('ws:bench', 1_000_000_000));
      clock.advance(0.5);
    }
    return Number(process.hrtime.bigint() - started) / 1000 / n;
  };
  await run(calls); // fills the window and warms up
  return run(calls);
}

/** With DATABASE_URL: a scratch database on that server, so that the bench leaves nothing behind. */
async function scratchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `rl_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const base = loadConfig({
  ...process.env,
  DATA_DIR: process.env.DATA_DIR || path.join(projectRoot, 'bench', 'work', 'ratelimit'),
  LOG_LEVEL: 'error',
  SCHEDULER: '0',
  SEED_SAMPLE: '0',
  REDIS_URL: '',
});
const scratch = base.databaseUrl ? await scratchDatabase(base.databaseUrl) : null;
const config: Config = { ...base, databaseUrl: scratch?.url };
const db = await openServiceDatabase(config);
const apps: App[] = [];
try {
  const pepper = randomBytes(16).toString('hex');
  const { workspace, key } = await createWorkspace(
    db.pool,
    { plan: 'enterprise', name: 'rate-limit bench' },
    pepper,
    systemClock,
  );
  await setPerMinute(db.pool, workspace.id, 1_000_000_000);

  const modes: Array<{ name: string; app: App; url: string }> = [];
  const add = async (name: string, app: App): Promise<void> => {
    apps.push(app);
    const address = await app.http.listen({ host: '127.0.0.1', port: 0 });
    modes.push({ name, app, url: `${address}${ROUTE}` });
  };
  await add('off', await buildApp({ config, db, pepper, limiter: () => switchedOff }));
  await add('in-process', await buildApp({ config, db, pepper }));
  if (process.env.REDIS_URL) {
    await add(
      'redis',
      await buildApp({
        config: {
          ...config,
          redisUrl: process.env.REDIS_URL,
          rateLimitPrefix: `bench:${randomBytes(4).toString('hex')}:`,
        },
        db,
        pepper,
      }),
    );
  }

  console.log(
    `rate-limit bench: GET ${ROUTE}, ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, ` +
      `node ${process.version}, ${os.cpus().length} CPUs, ${scratch ? 'DATABASE_URL' : 'embedded PostgreSQL'}`,
  );
  const micros = await storeCostMicros(200_000);
  console.log(
    '\nlimiter cost per request (in-process store and headers, 120,000 requests in the window): ' +
      `${micros.toFixed(2)} µs`,
  );
  console.log(
    `  at ${RATE} req/s: ${((micros * RATE) / 1000).toFixed(1)} ms of CPU a second, ` +
      `${(((micros * RATE) / 1e6) * 100).toFixed(2)}% of one core`,
  );

  // Warm-up: JIT, pool connections.
  for (const m of modes) await cannon({ url: m.url, key: key.key, seconds: 3, connections: CONNECTIONS });

  const phases: Array<{ name: string; rate: number | null }> = [
    { name: `at ${RATE} req/s`, rate: RATE },
    { name: 'unthrottled', rate: null },
  ];
  for (const phase of phases) {
    const runs = new Map<string, CannonRun[]>(modes.map((m) => [m.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const m of round % 2 ? [...modes].reverse() : modes)
        runs
          .get(m.name)!
          .push(
            await cannon({ url: m.url, key: key.key, seconds: DURATION, connections: CONNECTIONS, rate: phase.rate }),
          );
    }
    const median = (rs: CannonRun[], f: (r: CannonRun) => number): number => {
      const v = rs.map(f).sort((a, b) => a - b);
      return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
    };
    const off = runs.get('off')!;
    /** How much worse `value` is than `base`, in percent of `base` (negative: better). */
    const worse = (base: number, value: number, higherIsWorse: boolean): string =>
      `${(((higherIsWorse ? value - base : base - value) / base) * 100).toFixed(1)}%`.padStart(8);
    console.log(`\n${phase.name} (medians of ${ROUNDS} runs)`);
    console.log('  mode          req/s   p50 ms   p99 ms   failed   CPU µs/req   throughput cost   CPU cost');
    for (const [name, rs] of runs) {
      const [rps, cpu] = [median(rs, (r) => r.rps), median(rs, (r) => r.cpu)];
      const costs =
        name === 'off'
          ? ''
          : `${worse(
              median(off, (r) => r.rps),
              rps,
              false,
            )}          ${worse(
              median(off, (r) => r.cpu),
              cpu,
              true,
            )}`;
      console.log(
        `  ${name.padEnd(12)} ${rps.toFixed(0).padStart(6)} ${median(rs, (r) => r.p50)
          .toFixed(1)
          .padStart(8)} ${median(rs, (r) => r.p99)
          .toFixed(1)
          .padStart(
            8,
          )} ${String(rs.reduce((s, r) => s + r.failed, 0)).padStart(8)} ${cpu.toFixed(0).padStart(12)}   ${costs}`,
      );
    }
  }
} finally {
  for (const app of apps) await app.http.close();
  await db.close();
  await scratch?.drop();
}
