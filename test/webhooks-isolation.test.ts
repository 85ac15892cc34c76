// One slow receiver delays only itself (docs/webhooks.md, "Delivery"). Beside an endpoint that trickles a byte
// every 3 s and never finishes, and one that never answers, every healthy endpoint of several workspaces gets
// its ping within seconds: with one delivering process, with two side by side on the same database (no
// delivery sent twice), and with the worker alone. An endpoint never has more than 2 requests open, and a slow
// attempt fails at its 10 s deadline.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { createEndpoint } from '../src/monitoring/store.js';
import { sendTestEvent } from '../src/monitoring/event-log.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { freePort, serverProcess } from './support/server-process.js';

/** Healthy endpoints: this many workspaces with this many each, and one more beside the slow ones. */
const WORKSPACES = 3;
const ENDPOINTS_EACH = 4;
/** The most requests an endpoint has open at once, whatever the number of delivering processes. */
const PER_ENDPOINT_CAP = 2;
/** Pings queued to each slow endpoint: one more than it may have in flight. */
const SLOW_PINGS = PER_ENDPOINT_CAP + 1;
/** Pings per healthy endpoint with two processes delivering: more than an endpoint takes at once. */
const SIDE_BY_SIDE_PINGS = PER_ENDPOINT_CAP + 1;
/** "Within a few seconds" of the ping, for every healthy endpoint. */
const HEALTHY_WITHIN_MS = 5_000;
const TRICKLE_EVERY_MS = 3_000;
const DEADLINE_MS = 10_000;

/** Requests a receiver holds open now, and the most it held at once. */
class Load {
  open = 0;
  most = 0;
  enter(res: http.ServerResponse): void {
    this.most = Math.max(this.most, ++this.open);
    res.on('close', () => this.open--);
  }
}

const received: Array<{ id: string; at: number }> = [];
const healthy = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ id: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id, at: Date.now() });
    res.writeHead(200).end('ok');
  });
});
const trickling = new Load();
const trickle = http.createServer((_req, res) => {
  trickling.enter(res);
  res.writeHead(200, { 'content-type': 'text/plain' }).flushHeaders();
  const timer = setInterval(() => res.write('.'), TRICKLE_EVERY_MS);
  res.on('close', () => clearInterval(timer));
});
const silence = new Load();
const silent = http.createServer((_req, res) => silence.enter(res));

let db: TestDatabase;
let dataDir: string;
let slowWorkspace: string;
const slowEndpoints: string[] = [];
const healthyEndpoints: Array<{ workspace: string; id: string }> = [];
const processes: ChildProcess[] = [];

const urlOf = (server: http.Server, at: string): string =>
  `http://127.0.0.1:${(server.address() as AddressInfo).port}${at}`;

async function endpoint(workspace: string, url: string): Promise<string> {
  return (await createEndpoint(db.pool, workspace, 'growth', url, ['entity.updated'], true, OPERATOR)).id;
}

before(async () => {
  db = await testDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'rl-webhook-isolation-'));
  for (const s of [healthy, trickle, silent]) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const workspace = async (): Promise<string> =>
    (await createWorkspace(db.pool, { plan: 'growth' }, 'isolation', systemClock)).workspace.id;
  slowWorkspace = await workspace();
  slowEndpoints.push(await endpoint(slowWorkspace, urlOf(trickle, '/trickle')));
  slowEndpoints.push(await endpoint(slowWorkspace, urlOf(silent, '/silent')));
  healthyEndpoints.push({ workspace: slowWorkspace, id: await endpoint(slowWorkspace, urlOf(healthy, '/beside')) });
  for (let w = 0; w < WORKSPACES; w++) {
    const id = await workspace();
    for (let e = 0; e < ENDPOINTS_EACH; e++)
      healthyEndpoints.push({ workspace: id, id: await endpoint(id, urlOf(healthy, `/h/${w}/${e}`)) });
  }
});
after(async () => {
  for (const p of processes) p.kill('SIGKILL');
  for (const s of [healthy, trickle, silent]) {
    s.closeAllConnections();
    s.close();
  }
  await db.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A delivering process on the test database, killed at the end (its stop is not what is tested here). */
async function start(command: 'serve' | 'worker'): Promise<ChildProcess> {
  const child = await serverProcess(
    {
      DATABASE_URL: db.url,
      PORT: String(await freePort()),
      API_KEY_PEPPER: 'isolation',
      DATA_DIR: dataDir,
      WEBHOOKS_ALLOW_PRIVATE: '1',
      // Delivery has its own setting (WEBHOOKS_DELIVERY, on by default): no scheduled job is needed.
      SCHEDULER: '0',
      // A failed slow attempt is not retried during the test: only the queued pings keep the endpoint busy.
      WEBHOOKS_RETRY_SECONDS: '3600',
    },
    { command },
  );
  processes.push(child);
  return child;
}

async function until(done: () => boolean | Promise<boolean>, ms: number, what: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) assert.fail(`${what()} (after ${ms} ms)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Queues pings to both slow endpoints and waits until each has the most requests it may have open. */
async function busySlowEndpoints(): Promise<void> {
  const paused = (on: boolean) =>
    db.pool.query(`UPDATE webhook_endpoints SET paused_at = CASE WHEN $2 THEN now() END WHERE id = ANY($1)`, [
      slowEndpoints,
      on,
    ]);
  // Queued while paused and released in one statement: both endpoints' pings fall due at the same instant.
  await paused(true);
  for (const id of slowEndpoints) for (let i = 0; i < SLOW_PINGS; i++) await sendTestEvent(db.pool, slowWorkspace, id);
  await paused(false);
  await until(
    () => trickling.open >= PER_ENDPOINT_CAP && silence.open >= PER_ENDPOINT_CAP,
    DEADLINE_MS,
    () => `slow endpoints not busy: ${trickling.open} trickling, ${silence.open} silent`,
  );
}

/** `each` pings per healthy endpoint, every one arrived within HEALTHY_WITHIN_MS; notes the slowest. */
async function pingHealthy(t: TestContext, each = 1): Promise<void> {
  const sent = new Map<string, number>();
  for (let i = 0; i < each; i++)
    for (const e of healthyEndpoints) sent.set((await sendTestEvent(db.pool, e.workspace, e.id)).id, Date.now());
  const arrived = (): Array<{ id: string; at: number }> => received.filter((r) => sent.has(r.id));
  await until(
    () => new Set(arrived().map((r) => r.id)).size === sent.size,
    HEALTHY_WITHIN_MS,
    () => `${new Set(arrived().map((r) => r.id)).size} of ${sent.size} pings to healthy endpoints arrived`,
  );
  const slowest = Math.max(...arrived().map((r) => r.at - sent.get(r.id)!));
  t.diagnostic(`${sent.size} pings to ${healthyEndpoints.length} healthy endpoints: the last in ${slowest} ms`);
}

function assertCapsHeld(): void {
  assert.ok(trickling.most <= PER_ENDPOINT_CAP, `${trickling.most} requests open at once to the trickling endpoint`);
  assert.ok(silence.most <= PER_ENDPOINT_CAP, `${silence.most} requests open at once to the silent endpoint`);
}

describe('a slow webhook receiver delays only itself', { timeout: 60_000 }, () => {
  let firstSlow = 0;

  it('one process: every healthy endpoint within seconds', async (t) => {
    await start('serve');
    firstSlow = Date.now();
    await busySlowEndpoints();
    await pingHealthy(t);
    assertCapsHeld();
  });

  it('two processes side by side (serve and worker): the same, and no delivery sent twice', async (t) => {
    await start('worker');
    await busySlowEndpoints();
    // More pings than an endpoint takes at once: the two processes claim side by side.
    await pingHealthy(t, SIDE_BY_SIDE_PINGS);
    assertCapsHeld();
    const ids = received.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'an event received twice');
    const deliveries = async (): Promise<Array<{ status: string; attempts: number; logged: number }>> =>
      (
        await db.pool.query<{ status: string; attempts: number; logged: number }>(
          `SELECT d.status, d.attempts,
                  (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
           FROM webhook_deliveries d WHERE d.endpoint_id = ANY($1)`,
          [healthyEndpoints.map((e) => e.id)],
        )
      ).rows;
    // The receiver may answer before the sender has recorded the answer.
    await until(
      async () => (await deliveries()).every((d) => d.status === 'delivered'),
      1_000,
      () => 'healthy deliveries not recorded as delivered',
    );
    const rows = await deliveries();
    assert.equal(rows.length, (1 + SIDE_BY_SIDE_PINGS) * healthyEndpoints.length);
    assert.ok(
      rows.every((r) => r.attempts === 1 && r.logged === 1),
      JSON.stringify(rows),
    );
  });

  it('a slow attempt fails at its deadline, and the log says so', async () => {
    const failures = async (): Promise<Array<{ endpoint_id: string; error: string; latency_ms: number }>> =>
      (
        await db.pool.query<{ endpoint_id: string; error: string; latency_ms: number }>(
          `SELECT d.endpoint_id, a.error, a.latency_ms FROM webhook_attempts a
           JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ANY($1)`,
          [slowEndpoints],
        )
      ).rows;
    // The first attempts of both endpoints, started in the first test.
    await until(
      async () => {
        const done = await failures();
        return slowEndpoints.every((id) => done.filter((f) => f.endpoint_id === id).length >= PER_ENDPOINT_CAP);
      },
      firstSlow + DEADLINE_MS + 3_000 - Date.now(),
      () => 'the first slow attempts are not recorded',
    );
    for (const f of await failures()) {
      assert.equal(f.error, 'no complete answer within 10 s');
      assert.ok(f.latency_ms >= DEADLINE_MS && f.latency_ms < DEADLINE_MS + 1_000, `${f.latency_ms} ms`);
    }
  });

  it('the worker alone delivers once the server is gone', async (t) => {
    const server = processes[0]!;
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    await pingHealthy(t);
  });
});
