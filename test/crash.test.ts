// A server killed (-9) in the middle of a load: the ledger against what the client received. Every answer
// received is charged once, with its log row; only answers the kill cut short as they were written may be
// charged without arriving; the dead instance's reservations are released within seconds (no five-minute
// wait for the sweeper's age limit).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sweepReservations } from '../src/accounts/gate.js';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { loadFixture } from './support/fixture.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { freePort, serverProcess } from './support/server-process.js';

const PEPPER = 'crash-test-pepper';
const CONNECTIONS = 16;
/** The server is killed once this many answers have arrived. */
const KILL_AFTER = 300;

let db: TestDatabase;
let dataDir: string;

before(async () => {
  db = await testDatabase();
  await loadFixture(db.pool);
  dataDir = await mkdtemp(path.join(tmpdir(), 'rl-crash-'));
});
after(async () => {
  await db.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The server from source, as `registry serve` runs it, on the test database. */
const startServer = (port: number): Promise<ChildProcess> =>
  serverProcess({
    DATABASE_URL: db.url,
    PORT: String(port),
    API_KEY_PEPPER: PEPPER,
    DATA_DIR: dataDir,
    SCHEDULER: '0',
  });

describe('a server killed mid-load', () => {
  it('charges every answer received, once, with its log row; its reservations released in seconds', async () => {
    const { workspace, key } = await createWorkspace(db.pool, { plan: 'pro' }, PEPPER, systemClock);
    await setPerMinute(db.pool, workspace.id, 1_000_000);
    const port = await freePort();
    const server = await startServer(port);
    const paths = ['/v1/entities/search?name=acme', '/v1/entities/L23000000001', '/v1/filings/recent', '/v1/sample'];
    const charged = new Set<string>(); // request ids of answers that cost a credit (2xx, 404)
    let answers = 0;
    let killed = false;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}${paths[(w + i) % paths.length]}`, {
            headers: { authorization: `Bearer ${key.key}` },
          });
          await res.text();
          const id = res.headers.get('x-request-id');
          if ((res.ok || res.status === 404) && id && !paths[(w + i) % paths.length]!.startsWith('/v1/sample'))
            charged.add(id);
          if (++answers === KILL_AFTER) {
            server.kill('SIGKILL');
            killed = true;
          }
        } catch {
          return; // the connection died with the server
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
    await new Promise((resolve) =>
      server.exitCode === null && server.signalCode === null ? server.once('exit', resolve) : resolve(null),
    );

    // The dead instance's lock goes with its session as soon as PostgreSQL sees the connection closed;
    // its reservations go at the next sweep (a server sweeps every few seconds), not minutes later.
    const killedAt = Date.now();
    for (;;) {
      await sweepReservations(db.pool, new Date());
      const left = await db.pool.query('SELECT count(*)::int AS n FROM credit_reservations');
      if (left.rows[0].n === 0) break;
      assert.ok(Date.now() - killedAt < 5_000, `${left.rows[0].n} reservations still held 5 s after the kill`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const { rows } = await db.pool.query<{ request_id: string; net: number; logged: number | null }>(
      `SELECT c.request_id, count(*)::int - count(r.id)::int AS net, min(l.credits) AS logged
       FROM credit_ledger c
       LEFT JOIN credit_ledger r ON r.reverses = c.id
       LEFT JOIN request_logs l ON l.request_id = c.request_id
       WHERE c.workspace_id = $1 AND c.amount = -1 GROUP BY c.request_id`,
      [workspace.id],
    );
    const billed = rows.filter((r) => r.net > 0);
    assert.ok(charged.size >= KILL_AFTER / 2, `the load got answers (${charged.size})`);
    assert.deepEqual(
      billed.filter((r) => r.net > 1),
      [],
      'nothing charged twice',
    );
    const billedIds = new Set(billed.map((r) => r.request_id));
    assert.deepEqual(
      [...charged].filter((id) => !billedIds.has(id)),
      [],
      'every answer received was charged (kept before it was sent)',
    );
    assert.deepEqual(
      billed.filter((r) => r.logged !== 1),
      [],
      'every charge has its request-log row',
    );
    // Only an answer kept and then cut short by the kill as it was being written can be charged without
    // arriving: at most one per connection in flight (an Idempotency-Key gets it again, free).
    const unreceived = billed.filter((r) => !charged.has(r.request_id));
    assert.ok(unreceived.length <= CONNECTIONS, `${unreceived.length} charged answers not received`);
    process.stderr.write(
      `crash: ${charged.size} charged answers received, all billed; ${unreceived.length} billed as the kill cut them\n`,
    );
  });
});
