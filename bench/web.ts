// `npm run bench:web`: the web app on the sample dataset. Two measures, never a failure on timing:
//
// 1. Pages: each public page and each account page (signed in as a member of a busy workspace whose
//    request log the API load below has filled), fetched one after another; median and p95 against
//    the 50 ms median target.
// 2. The API with and without the web app: the same database and rows, two servers built alike but
//    for the web app's registration, the entity detail and the name search loaded by autocannon in
//    alternating rounds. The web app's routes live in their own Fastify scope, so its hooks never run
//    for /v1; this shows the rates unchanged within noise.
//
// Database: DATABASE_URL's (the sample must be loaded there) or an embedded PostgreSQL under
// bench/work/web with the 25,000-entity sample, generated and loaded on the first run. Settings:
// BENCH_DURATION (seconds per run, 5), BENCH_ROUNDS (runs per mode and route, alternating, 3),
// BENCH_PAGE_REQUESTS (fetches per page, 100).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { cannon } from './cannon.js';
import { openSession } from '../src/accounts/sessions.js';
import { issueEmailToken, signUp, verifyEmail } from '../src/accounts/users.js';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { buildApp, type App } from '../src/main/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config/index.js';
import { projectRoot } from '../src/config/paths.js';
import { openServiceDatabase } from '../src/main/database.js';
import { seedSample } from '../src/sample/seed.js';

const setting = (name: string, fallback: number): number => Number(process.env[name] || fallback);
const DURATION = setting('BENCH_DURATION', 5);
const ROUNDS = setting('BENCH_ROUNDS', 3);
const PAGE_REQUESTS = setting('BENCH_PAGE_REQUESTS', 100);
/** The issue's target for a page's median answer on the sample dataset. */
const PAGE_TARGET_MS = 50;
const CONNECTIONS = 10;

const PUBLIC_PAGES = ['/', '/pricing', '/docs', '/data-coverage', '/llms.txt', '/login', '/signup'];
const ACCOUNT_PAGES = [
  '/account',
  '/account/keys',
  '/account/billing',
  '/account/logs',
  '/account/playground',
  '/account/members',
];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

/** Fetches `url` `n` times one after another; the answer times in milliseconds. */
async function timePage(url: string, cookie: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { cookie }, redirect: 'manual' });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

const config = loadConfig({
  ...process.env,
  DATA_DIR: process.env.DATA_DIR || path.join(projectRoot, 'bench', 'work', 'web'),
  LOG_LEVEL: 'error',
  SCHEDULER: '0',
  REDIS_URL: '',
});
const db = await openServiceDatabase(config);
const apps: App[] = [];
try {
  if (db.embedded)
    await seedSample(db.pool, config, {
      phase: (l) => console.log(`${l}...`),
      progress() {},
      detail() {},
      finish() {},
    });
  const pepper = randomBytes(16).toString('hex');
  const { workspace, key } = await createWorkspace(
    db.pool,
    { plan: 'enterprise', name: 'web bench' },
    pepper,
    systemClock,
  );
  await setPerMinute(db.pool, workspace.id, 1_000_000_000);
  // A member of that busy workspace, signed in: the account pages read its keys, usage and logs.
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const { user } = await signUp(db.pool, email, 'bench password 1', systemClock.now());
  await verifyEmail(db.pool, await issueEmailToken(db.pool, user.id, 'verify', systemClock.now()), pepper, systemClock);
  await db.pool.query(`INSERT INTO workspace_members VALUES ($1, $2, 'member', now())`, [workspace.id, user.id]);
  const { token } = await openSession(db.pool, user.id, systemClock.now());
  await db.pool.query('UPDATE web_sessions SET workspace_id = $2 WHERE user_id = $1', [user.id, workspace.id]);
  const cookie = `rl_session=${token}`;

  const { rows } = await db.pool.query<{ doc: string; word: string }>(
    `SELECT document_number AS doc, split_part(name, ' ', 1) AS word FROM registry.entities
     WHERE status = 'A' ORDER BY document_number LIMIT 1`,
  );
  const routes = {
    detail: `/v1/entities/${rows[0]!.doc}`,
    search: `/v1/entities/search?name=${encodeURIComponent(rows[0]!.word.toLowerCase())}&limit=10`,
  };
  const modes: Array<{ name: string; url: string }> = [];
  for (const web of [true, false]) {
    const app = await buildApp({ config, db, pepper, webApp: web });
    apps.push(app);
    modes.push({
      name: web ? 'with the web app' : 'without it',
      url: await app.http.listen({ host: '127.0.0.1', port: 0 }),
    });
  }
  console.log(
    `web bench: node ${process.version}, ${os.cpus().length} CPUs, ` +
      `${db.embedded ? 'embedded PostgreSQL' : 'DATABASE_URL'}, ` +
      `${CONNECTIONS} connections, ${DURATION} s a run, ${ROUNDS} rounds`,
  );

  console.log('\nAPI requests a second (median of the rounds), the web app registered or not:');
  for (const [name, route] of Object.entries(routes)) {
    for (const m of modes)
      await cannon({ url: `${m.url}${route}`, key: key.key, seconds: 2, connections: CONNECTIONS }); // warm-up
    const rps: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS; round++)
      for (const m of round % 2 ? [...modes].reverse() : modes) {
        const r = await cannon({ url: `${m.url}${route}`, key: key.key, seconds: DURATION, connections: CONNECTIONS });
        if (r.failed) throw new Error(`${r.failed} failed requests on ${route}`);
        (rps[m.name] ??= []).push(r.rps);
        (cpu[m.name] ??= []).push(r.cpu);
      }
    const [withWeb, without] = modes.map((m) => median(rps[m.name]!));
    const [cpuWith, cpuWithout] = modes.map((m) => median(cpu[m.name]!));
    const change = (a: number, b: number) => `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(1)}%`;
    console.log(
      `  ${name.padEnd(7)} ${route}\n          with ${withWeb!.toFixed(0)}/s, without ${without!.toFixed(0)}/s ` +
        `(${change(withWeb!, without!)}; rounds: ` +
        `${modes.map((m) => rps[m.name]!.map((x) => x.toFixed(0)).join(' ')).join(' | ')})\n` +
        `          server CPU per request: with ${cpuWith!.toFixed(0)} µs, without ${cpuWithout!.toFixed(0)} µs ` +
        `(${change(cpuWith!, cpuWithout!)})`,
    );
  }
  await apps[0]!.requestLog.flush();
  await apps[1]!.requestLog.flush();
  // What autovacuum does within a minute of such a load: the planner's statistics of the new rows.
  await db.pool.query('ANALYZE request_logs, usage_days');
  const logged = await db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM request_logs WHERE workspace_id = $1',
    [workspace.id],
  );

  console.log(
    `\npages, ${PAGE_REQUESTS} fetches each, one at a time (the workspace's log: ${logged.rows[0]!.n} rows):`,
  );
  const base = modes[0]!.url;
  for (const p of [...PUBLIC_PAGES, ...ACCOUNT_PAGES]) {
    // Public pages as a visitor sees them (signed in, /login and /signup redirect to the account).
    const as = ACCOUNT_PAGES.includes(p) ? cookie : '';
    await timePage(`${base}${p}`, as, 5);
    const times = await timePage(`${base}${p}`, as, PAGE_REQUESTS);
    const m = median(times);
    console.log(
      `  ${p.padEnd(22)} median ${m.toFixed(1).padStart(6)} ms  p95 ${p95(times).toFixed(1).padStart(6)} ms` +
        `  ${m <= PAGE_TARGET_MS ? 'ok' : `over the ${PAGE_TARGET_MS} ms target`}`,
    );
  }
} finally {
  for (const app of apps) await app.http.close();
  await db.close();
}
