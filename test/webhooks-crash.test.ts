// A server killed (-9) in the middle of webhook deliveries, then started again: every event reaches the
// receiver, and an event received twice carries the same id and body both times (docs/webhooks.md,
// "Delivery").
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { createEndpoint } from '../src/monitoring/store.js';
import { sendTestEvent } from '../src/monitoring/event-log.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { freePort, serverProcess } from './support/server-process.js';

const EVENTS = 120;
/** The receiver answers this slowly, so that deliveries are in flight when the server dies. */
const ANSWER_DELAY_MS = 150;
const KILL_AFTER = 20;

let db: TestDatabase;
let dataDir: string;
const received: Array<{ id: string; body: string }> = [];
let onReceived = (): void => {};
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    received.push({ id: (JSON.parse(body) as { id: string }).id, body });
    onReceived();
    setTimeout(() => res.writeHead(204).end(), ANSWER_DELAY_MS);
  });
});

before(async () => {
  db = await testDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'rl-webhook-crash-'));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
after(async () => {
  receiver.closeAllConnections();
  receiver.close();
  await db.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The server from source, as `registry serve` runs it, with its scheduler (and so the delivery job). */
const startServer = async (): Promise<ChildProcess> =>
  serverProcess({
    DATABASE_URL: db.url,
    PORT: String(await freePort()),
    API_KEY_PEPPER: 'crash',
    DATA_DIR: dataDir,
    SCHEDULER: '1',
    WEBHOOKS_ALLOW_PRIVATE: '1',
  });

describe('a server killed during webhook deliveries', () => {
  it('delivers every event after the restart, a duplicate only under the same id', { timeout: 120_000 }, async () => {
    const { workspace } = await createWorkspace(db.pool, { plan: 'growth' }, 'crash', systemClock);
    const { port } = receiver.address() as AddressInfo;
    const endpoint = await createEndpoint(
      db.pool,
      workspace.id,
      'growth',
      `http://127.0.0.1:${port}/hook`,
      ['entity.updated'],
      true,
      OPERATOR,
    );
    const ids = new Set<string>();
    for (let i = 0; i < EVENTS; i++) ids.add((await sendTestEvent(db.pool, workspace.id, endpoint.id)).id);

    const first = await startServer();
    await new Promise<void>((resolve) => {
      onReceived = () => (received.length >= KILL_AFTER ? resolve() : undefined);
    });
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const beforeRestart = new Set(received.map((r) => r.id));
    assert.ok(beforeRestart.size < EVENTS, 'killed before everything was delivered');

    const second = await startServer();
    try {
      const deadline = Date.now() + 100_000;
      for (;;) {
        const { rows } = await db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`,
        );
        if (rows[0]!.n === 0) break;
        assert.ok(Date.now() < deadline, `${rows[0]!.n} deliveries left`);
        await new Promise((r) => setTimeout(r, 250));
      }
    } finally {
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }
    const got = new Map<string, string>();
    for (const r of received) {
      if (got.has(r.id)) assert.equal(r.body, got.get(r.id), 'a duplicate carries the same body');
      got.set(r.id, r.body);
    }
    assert.deepEqual([...got.keys()].sort(), [...ids].sort(), 'every event, and no other id');
  });
});
