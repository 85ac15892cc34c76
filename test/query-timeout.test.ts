// QUERY_TIMEOUT_MS: a request's read that runs too long is stopped by PostgreSQL, answered with the
// error envelope, and charged nothing; the server goes on serving.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { buildApp, type App } from '../src/main/app.js';
import { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config/index.js';
import { openServiceDatabase } from '../src/main/database.js';
import type { Database } from '../src/db/index.js';
import { loadFixture } from './support/fixture.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let test: TestDatabase;
let db: Database;
let app: App;
let dataDir: string;
const clock = new ManualClock('2026-03-10T12:00:00Z');

before(async () => {
  test = await testDatabase();
  await loadFixture(test.pool);
  dataDir = await mkdtemp(path.join(tmpdir(), 'rl-timeout-'));
  const config = loadConfig({
    DATABASE_URL: test.url,
    QUERY_TIMEOUT_MS: '300',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SCHEDULER: '0',
  });
  db = await openServiceDatabase(config, { poolSize: 2 });
  app = await buildApp({ config, db, pepper: 'p', clock });
});
after(async () => {
  await app.http.close();
  await db.close();
  await test.close();
  await rm(dataDir, { recursive: true, force: true });
});

it('stops a search that runs past QUERY_TIMEOUT_MS, charges nothing, and serves the next one', async () => {
  const { workspace, key } = await createWorkspace(db.pool, { plan: 'pro' }, 'p', clock);
  const search = () =>
    app.http.inject({
      method: 'GET',
      url: '/v1/entities/search?name=acme%20holdings',
      headers: { authorization: `Bearer ${key.key}` },
    });
  // An import holding the table makes the search wait past its timeout.
  const blocker = await test.pool.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE registry.entities IN ACCESS EXCLUSIVE MODE');
    const stopped = await search();
    assert.equal(stopped.statusCode, 500);
    assert.equal(stopped.json().error.code, 'internal_error');
    assert.match(stopped.json().error.message, /took too long/);
  } finally {
    await blocker.query('ROLLBACK');
    blocker.release();
  }
  // The credit reserved for it came back.
  const moves = await db.pool.query(
    `SELECT kind, amount::int FROM credit_ledger
     WHERE workspace_id = $1 AND kind IN ('consumption', 'refund') ORDER BY id`,
    [workspace.id],
  );
  assert.deepEqual(moves.rows, [
    { kind: 'consumption', amount: -1 },
    { kind: 'refund', amount: 1 },
  ]);
  const served = await search();
  assert.equal(served.statusCode, 200);
  assert.equal(served.json().pagination.total, 6);
});
