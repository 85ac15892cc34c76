// READ_DATABASE_URL on a real streaming replica of the machine's PostgreSQL (DATABASE_URL): the test
// makes one with pg_basebackup -R into a cluster of its own on another port, starts and removes it.
// Searches read there; a daily import on the primary shows up there; when the replica stops, searches
// fall back to the primary within a second, and they return to the replica once it is back.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { buildApp, type App } from '../src/main/app.js';
import { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config/index.js';
import { openServiceDatabase } from '../src/main/database.js';
import type { Database } from '../src/db/index.js';
import { REPLICA_RETRY_MS } from '../src/db/read-pool.js';
import { importFiles } from '../src/registry/import/index.js';
import { loadFixture } from './support/fixture.js';
import { corporate, fileOf } from './support/records.js';
import { testDatabase, type TestDatabase } from './support/database.js';

const run = promisify(execFile);
const REPLICA_PORT = 5499;
const clock = new ManualClock('2026-03-10T12:00:00Z');

/** Why the test cannot run here, or null. Without CI it is skipped for that reason; in CI it fails. */
async function unavailable(): Promise<string | null> {
  const url = process.env.DATABASE_URL;
  if (!url) return 'needs the machine PostgreSQL in DATABASE_URL (the embedded server is not replicated)';
  if (!['127.0.0.1', 'localhost'].includes(new URL(url).hostname)) return 'DATABASE_URL is not on this machine';
  if (!existsSync(await binDir(url))) return `no PostgreSQL binaries at ${await binDir(url)}`;
  return null;
}

async function binDir(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
  await client.end();
  return `/usr/lib/postgresql/${Math.floor(Number(rows[0]!.v) / 10000)}/bin`;
}

/** Runs a PostgreSQL tool as the postgres user when this process is root (the server refuses root). */
const asPostgres = (bin: string, args: string[]) =>
  process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args);

const skip = await unavailable();
// The embedded run has no DATABASE_URL and skips; under CI a machine PostgreSQL that cannot replicate is a failure.
if (skip && process.env.CI && process.env.DATABASE_URL) throw new Error(`streaming replica test cannot run: ${skip}`);

describe('a streaming replica behind READ_DATABASE_URL', { skip: skip ?? false }, () => {
  let primary: TestDatabase;
  let dir: string;
  let bin: string;
  let db: Database;
  let app: App;
  let key: string;
  let files: string;

  const pgCtl = (...args: string[]) => asPostgres(path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), ...args]);
  const replicaUrl = (): string => {
    const u = new URL(primary.url);
    u.port = String(REPLICA_PORT);
    return u.toString();
  };
  const onReplica = async <T>(sql: string): Promise<T[]> => {
    const c = new pg.Client({ connectionString: replicaUrl() });
    await c.connect();
    try {
      return (await c.query(sql)).rows as T[];
    } finally {
      await c.end();
    }
  };
  const total = async (name: string): Promise<number> => {
    const res = await app.http.inject({
      method: 'GET',
      url: `/v1/entities/search?name=${encodeURIComponent(name)}`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().pagination.total;
  };
  const until = async (what: string, ok: () => Promise<boolean>, ms = 15_000): Promise<number> => {
    const started = Date.now();
    while (!(await ok().catch(() => false))) {
      if (Date.now() - started > ms) assert.fail(`${what}: not within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return Date.now() - started;
  };
  const importDaily = async (name: string, doc: string, entity: string): Promise<void> => {
    const file = path.join(files, name);
    await writeFile(file, fileOf([corporate({ doc, name: entity })]));
    await importFiles(primary.pool, [file]);
  };

  before(async () => {
    primary = await testDatabase();
    await loadFixture(primary.pool);
    bin = await binDir(primary.url);
    dir = await mkdtemp(path.join(tmpdir(), 'rl-replica-'));
    files = await mkdtemp(path.join(tmpdir(), 'rl-replica-files-'));
    if (process.getuid?.() === 0) await chown(dir, ...(await postgresIds()));
    const u = new URL(primary.url);
    await asPostgres(path.join(bin, 'pg_basebackup'), [
      ...['-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres')],
      ...['-D', path.join(dir, 'data'), '-R', '-X', 'stream', '-c', 'fast'],
    ]);
    // Debian keeps a cluster's configuration outside its data directory: the copy gets its own.
    const conf = [
      `port = ${REPLICA_PORT}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'hot_standby = on',
      'shared_buffers = 32MB',
    ];
    await writeFile(path.join(dir, 'data', 'postgresql.conf'), `${conf.join('\n')}\n`);
    await writeFile(path.join(dir, 'data', 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    if (process.getuid?.() === 0) {
      for (const f of ['postgresql.conf', 'pg_hba.conf'])
        await chown(path.join(dir, 'data', f), ...(await postgresIds()));
    }
    await pgCtl('-l', path.join(dir, 'log'), '-w', 'start');
    const config = loadConfig({
      DATABASE_URL: primary.url,
      READ_DATABASE_URL: replicaUrl(),
      DATA_DIR: files,
      LOG_LEVEL: 'silent',
      SCHEDULER: '0',
    });
    db = await openServiceDatabase(config, { poolSize: 2 });
    app = await buildApp({ config, db, pepper: 'p', clock });
    key = (await createWorkspace(db.pool, { plan: 'pro' }, 'p', clock)).key.key;
  });

  after(async () => {
    await app?.http.close();
    await db?.close();
    await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    await rm(files, { recursive: true, force: true });
    await primary?.close();
  });

  it('reads searches there, and a daily import on the primary shows up there', async () => {
    assert.deepEqual(await onReplica('SELECT pg_is_in_recovery() AS standby'), [{ standby: true }]);
    await until('the fixture replicated', async () => (await total('acme holdings')) === 6);
    // Replay paused: the primary's next import is not on the replica, and the search does not see it.
    await onReplica('SELECT pg_wal_replay_pause()');
    await importDaily('20260311c.txt', 'L26000900001', 'ZEPHYRINE LANTERN WORKS LLC');
    assert.equal(await total('zephyrine lantern'), 0);
    await onReplica('SELECT pg_wal_replay_resume()');
    await until('the import replicated', async () => (await total('zephyrine lantern')) === 1);
  });

  it('falls back to the primary within a second when the replica stops, and returns when it is back', async () => {
    await importDaily('20260312c.txt', 'L26000900002', 'QUILLFEATHER ORCHARD LLC');
    await until('replicated', async () => (await total('quillfeather orchard')) === 1);
    await pgCtl('-m', 'fast', '-w', 'stop');
    const stopped = Date.now();
    assert.equal(await total('quillfeather orchard'), 1); // answered, from the primary
    assert.ok(Date.now() - stopped < 1_000, `fallback took ${Date.now() - stopped} ms`);

    await pgCtl('-l', path.join(dir, 'log'), '-w', 'start');
    await until('the replica streams again', async () => (await onReplica('SELECT 1 AS ok')).length === 1);
    await onReplica('SELECT pg_wal_replay_pause()');
    await importDaily('20260313c.txt', 'L26000900003', 'VELLICHOR BASIN LLC');
    // On the primary itself: the reads may already be back on the replica (the retry interval can pass meanwhile).
    const onPrimary = await primary.pool.query(
      `SELECT 1 FROM registry.entities WHERE document_number = 'L26000900003'`,
    );
    assert.equal(onPrimary.rowCount, 1, 'the primary has it');
    // Within the retry interval the searches go back to the replica, where replay is paused.
    await until('reads back on the replica', async () => (await total('vellichor basin')) === 0, 5 * REPLICA_RETRY_MS);
    await onReplica('SELECT pg_wal_replay_resume()');
  });
});

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return [Number(stdout.trim()), Number(group.trim())];
}
