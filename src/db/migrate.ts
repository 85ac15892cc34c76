// The database's schema: the plain SQL files of src/db/migrations, applied in name order, each once and
// recorded by name in `schema_migrations`, all in one transaction under an advisory lock (instances
// starting together do not race). The baseline is 001 to 005, one file per domain, each object in its
// final form; every file after it (006 monitoring, 007 an index of deliveries, 008 settlement before the answer
// and idempotency keys, 009 the leases of the delivery loop, 010 a rotated webhook secret's overlap, 011 events
// numbered per workspace, 012 billing documents and the spending cap, 013 rolled keys, usage per key and the audit log,
// 014 the plan chosen before sign-up, 015 two-factor login, 016 address changes, 017 deletion, 018 reconciliation
// credentials) is an upgrade step, numbered after the last, that takes a database made by the files before it to
// the new schema in place (ALTER what exists, fill what a new column or table needs from the rows there), so every
// database that ran the files before gets it at its next start; a full load then builds registry tables from
// their live definitions (src/registry/import/snapshot.ts). An applied file is never edited: a database
// that recorded it would not see the edit. A database recording a file that is not here was made by a
// schema this code cannot upgrade, and is refused before anything is changed.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { migrationsDir } from '../config/paths.js';
import { inTransaction } from './pool.js';

const MIGRATION_LOCK = 7_310_001;

/** The names of the unknown files a refusal lists, at most. */
const NAMES_SHOWN = 3;

/** The database was migrated by files this code does not have: an earlier, unreleased schema or a newer version's. */
export class UnknownSchemaError extends Error {
  constructor(readonly unknown: readonly string[]) {
    const shown = unknown.slice(0, NAMES_SHOWN).join(', ');
    const more = unknown.length > NAMES_SHOWN ? ` and ${unknown.length - NAMES_SHOWN} more` : '';
    super(
      `this database's schema was made by migrations this version does not have (${shown}${more}) and cannot be ` +
        'upgraded: import the registry again into a new database (a new DATA_DIR for the embedded PostgreSQL, ' +
        'or a new database in DATABASE_URL)',
    );
    this.name = 'UnknownSchemaError';
  }
}

/** Applies the files of `dir` a database has not recorded yet; returns their names. */
export async function migrate(pool: pg.Pool, dir = migrationsDir): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const { rows: exists } = await client.query<{ found: boolean }>(
      `SELECT to_regclass('schema_migrations') IS NOT NULL AS found`,
    );
    const done = new Set<string>();
    if (exists[0]!.found) {
      const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      for (const r of rows) done.add(r.name);
    }
    // Checked before anything is written: no file here can bring such a database to this schema.
    const unknown = [...done].filter((name) => !files.includes(name));
    if (unknown.length > 0) throw new UnknownSchemaError(unknown);

    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations
       (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await client.query(await readFile(path.join(dir, file), 'utf8'));
      await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}
