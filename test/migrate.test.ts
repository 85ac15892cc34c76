// The schema's migrations: a current database takes nothing, a later file is an upgrade step applied
// once, and a database recording files this version does not have (the migrations before the
// baseline, or a newer version's) is refused before anything is changed, in words the CLI prints.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { migrationsDir, projectRoot } from '../src/config/paths.js';
import { prepareDatabase } from '../src/main/database.js';
import { UnknownSchemaError, migrate } from '../src/db/migrate.js';
import type { Pool } from '../src/db/pool.js';
import { testDatabase, type TestDatabase } from './support/database.js';

/** Some of the files that made the schema before the baseline, as such a database records them. */
const OLD_FILES = [
  '001_registry.sql',
  '002_imports.sql',
  '003_accounts.sql',
  '004_zip_counties.sql',
  '005_jobs.sql',
  '006_billing.sql',
  '010_search_scale.sql',
  '041_drop_entity_agent_index.sql',
];

/** Those of OLD_FILES that are not among the current files, in name order. */
const UNKNOWN_OLD_FILES = [
  '002_imports.sql',
  '003_accounts.sql',
  '004_zip_counties.sql',
  '005_jobs.sql',
  '006_billing.sql',
  '010_search_scale.sql',
  '041_drop_entity_agent_index.sql',
];

/** What a start could change: the tables and indexes, the files recorded, the rows of the plans. */
async function state(pool: Pool): Promise<unknown> {
  const { rows } = await pool.query(`
    SELECT (SELECT array_agg(n.nspname || '.' || c.relname ORDER BY 1) FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'registry')) AS relations,
           (SELECT array_agg(name || ' ' || applied_at ORDER BY name) FROM schema_migrations) AS recorded,
           (SELECT count(*) FROM plans) AS plans`);
  return rows[0];
}

async function record(pool: Pool, names: readonly string[]): Promise<void> {
  await pool.query('DELETE FROM schema_migrations');
  await pool.query('INSERT INTO schema_migrations (name) SELECT unnest($1::text[])', [names]);
}

const refusal = (unknown: readonly string[]) => (err: unknown) => {
  assert.ok(err instanceof UnknownSchemaError, String(err));
  assert.deepEqual(err.unknown, unknown);
  assert.match(err.message, /import the registry again into a new database/);
  assert.match(err.message, /a new DATA_DIR for the embedded PostgreSQL, or a new database in DATABASE_URL/);
  return true;
};

let t: TestDatabase;
const dirs: string[] = [];
beforeEach(async () => {
  t = await testDatabase();
});
afterEach(async () => {
  await t.close();
});
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('a database made by the migrations before the baseline', () => {
  it('is refused before anything is changed', async () => {
    await record(t.pool, OLD_FILES);
    // A start that went on would write the plans back.
    await t.pool.query('DELETE FROM plans');
    const before = await state(t.pool);
    await assert.rejects(prepareDatabase(t.pool), refusal(UNKNOWN_OLD_FILES));
    assert.deepEqual(await state(t.pool), before);
  });

  it('is refused when it records one old file beside the current ones', async () => {
    const current = (await readdir(migrationsDir)).filter((f) => f.endsWith('.sql'));
    await record(t.pool, [...current, '010_search_scale.sql']);
    await t.pool.query('DELETE FROM plans');
    const before = await state(t.pool);
    await assert.rejects(prepareDatabase(t.pool), refusal(['010_search_scale.sql']));
    assert.deepEqual(await state(t.pool), before);
  });

  it('is refused when it holds nothing but schema_migrations, which stays as it was', async () => {
    await t.pool.query('DROP SCHEMA registry CASCADE');
    await t.pool.query('DROP SCHEMA public CASCADE');
    await t.pool.query('CREATE SCHEMA public');
    await t.pool.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL)');
    await t.pool.query(`INSERT INTO schema_migrations VALUES ('010_search_scale.sql', '2026-11-20T00:00:00Z')`);
    await assert.rejects(migrate(t.pool), refusal(['010_search_scale.sql']));
    const { rows } = await t.pool.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relnamespace IN ('public'::regnamespace) ORDER BY 1`,
    );
    assert.deepEqual(
      rows.map((r) => r.relname),
      ['schema_migrations', 'schema_migrations_pkey'],
    );
    assert.equal((await t.pool.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'registry'`)).rowCount, 0);
  });

  it('is refused by the CLI with the message alone, and a non-zero exit', async () => {
    await record(t.pool, OLD_FILES);
    const failed = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join(projectRoot, 'src/cli/main.ts'), 'status'],
      { cwd: projectRoot, env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent' } },
    ).then(
      () => assert.fail('the status command ran on an old database'),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    assert.equal(failed.code, 1);
    assert.equal(failed.stdout, '');
    assert.equal(failed.stderr, `registry: ${new UnknownSchemaError(UNKNOWN_OLD_FILES).message}\n`);
  });
});

describe('a database made by the current files', () => {
  it('takes nothing; a later file is an upgrade step applied once, and a database that took it is newer', async () => {
    assert.deepEqual(await migrate(t.pool), []);
    const dir = await mkdtemp(path.join(tmpdir(), 'rl-migrations-'));
    dirs.push(dir);
    for (const f of await readdir(migrationsDir)) await copyFile(path.join(migrationsDir, f), path.join(dir, f));
    const upgrade = '999_job_note.sql';
    await writeFile(path.join(dir, upgrade), 'ALTER TABLE job_runs ADD COLUMN note text;\n');
    assert.deepEqual(await migrate(t.pool, dir), [upgrade]);
    assert.deepEqual(await migrate(t.pool, dir), []);
    const { rowCount } = await t.pool.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'job_runs' AND column_name = 'note'`,
    );
    assert.equal(rowCount, 1);
    await assert.rejects(migrate(t.pool), refusal([upgrade]));
  });
});
