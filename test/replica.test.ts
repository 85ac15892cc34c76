// READ_DATABASE_URL: searches read from the replica; the gate, credits and logs stay on the primary.
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

let primary: TestDatabase;
let replica: TestDatabase;
let db: Database;
let app: App;
let dataDir: string;
const clock = new ManualClock('2026-03-10T12:00:00Z');

before(async () => {
  [primary, replica] = await Promise.all([testDatabase(), testDatabase()]);
  // The "replica" holds the registry; the primary has none (a replica that had not caught up would show the
  // same routing).
  await loadFixture(replica.pool);
  dataDir = await mkdtemp(path.join(tmpdir(), 'rl-replica-'));
  const config = loadConfig({
    DATABASE_URL: primary.url,
    READ_DATABASE_URL: replica.url,
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
  await Promise.all([primary.close(), replica.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

it('reads searches from READ_DATABASE_URL and keeps money on DATABASE_URL', async () => {
  assert.notEqual(db.readPool, db.pool);
  const { workspace, key } = await createWorkspace(db.pool, { plan: 'pro' }, 'p', clock);
  const res = await app.http.inject({
    method: 'GET',
    url: '/v1/entities/search?name=acme%20holdings',
    headers: { authorization: `Bearer ${key.key}` },
  });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().pagination.total, 6);
  const onPrimary = await primary.pool.query('SELECT count(*)::int AS n FROM registry.entities');
  assert.equal(onPrimary.rows[0].n, 0);
  const spent = await primary.pool.query(
    `SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1 AND kind = 'consumption'`,
    [workspace.id],
  );
  assert.equal(spent.rows[0].n, 1);
  const onReplica = await replica.pool.query('SELECT count(*)::int AS n FROM credit_ledger');
  assert.equal(onReplica.rows[0].n, 0);
});
