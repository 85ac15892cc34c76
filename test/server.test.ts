// Starting the service: a start that cannot listen fails alone, with no job left running behind it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config/index.js';
import { linesOnly, startServer } from '../src/main/server.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
before(async () => {
  db = await testDatabase();
});
after(() => db.close());

describe('server start', () => {
  it('fails on a port in use without starting its jobs', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const lines: string[] = [];
    const config = loadConfig({
      DATABASE_URL: db.url,
      HOST: '127.0.0.1',
      PORT: String(port),
      API_KEY_PEPPER: 'test-pepper',
      SCHEDULER: 'true',
    });
    try {
      await assert.rejects(
        startServer(
          config,
          linesOnly((line) => lines.push(line)),
        ),
        /EADDRINUSE/,
      );
      // Startup runs begin at once; give any that were started the time to run into the closed pool.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(
        lines.filter((l) => l.startsWith('job ')),
        [],
      );
      const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM job_runs');
      assert.equal(rows[0]!.n, 0);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
