// Test databases: each test file gets its own database, created from a migrated template, on the
// server given by DATABASE_URL (CI: the machine's PostgreSQL) or on an embedded one.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { projectRoot } from '../../src/config/paths.js';
import { startEmbedded, type EmbeddedServer } from '../../src/db/embedded.js';
import { prepareDatabase } from '../../src/main/database.js';
import { createPool, type Pool } from '../../src/db/pool.js';

export const TEMPLATE_ENV = 'TEST_TEMPLATE_URL';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The server tests run on: DATABASE_URL's, or an embedded one under .data/test-pg. */
export async function testServer(): Promise<{ adminUrl: string; embedded: EmbeddedServer | null }> {
  if (process.env.DATABASE_URL) return { adminUrl: process.env.DATABASE_URL, embedded: null };
  // Small memory: test data is small, and several test runs may share the machine.
  const embedded = await startEmbedded(path.join(projectRoot, '.data'), {
    name: 'test-pg',
    settings: ['shared_buffers=256MB', 'maintenance_work_mem=256MB'],
  });
  return { adminUrl: embedded.adminUrl, embedded };
}

/** Creates a migrated template database and returns its URL. */
export async function createTemplate(adminUrl: string): Promise<string> {
  const name = `rl_tmpl_${process.pid}_${randomBytes(3).toString('hex')}`;
  await admin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(adminUrl, name);
  const pool = createPool(url, 1);
  try {
    await prepareDatabase(pool);
  } finally {
    await pool.end();
  }
  return url;
}

export async function dropDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`));
}

export interface TestDatabase {
  readonly url: string;
  readonly pool: Pool;
  close(): Promise<void>;
}

/** A fresh, migrated database for one test file; `close` drops it. */
export async function testDatabase(): Promise<TestDatabase> {
  let templateUrl = process.env[TEMPLATE_ENV];
  let cleanup = async (): Promise<void> => {};
  if (!templateUrl) {
    // Run on its own (not through `npm test`): set up a server and template for this process.
    const { adminUrl, embedded } = await testServer();
    templateUrl = await createTemplate(adminUrl);
    const t = templateUrl;
    cleanup = async () => {
      await dropDatabase(adminUrl, t);
      await embedded?.stop();
    };
  }
  const template = new URL(templateUrl).pathname.slice(1);
  const name = `${template.replace('rl_tmpl_', 'rl_t_')}_${randomBytes(4).toString('hex')}`;
  const adminUrl = withDatabase(templateUrl, 'postgres');
  await admin(adminUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  const url = withDatabase(templateUrl, name);
  const pool = createPool(url, 6);
  return {
    url,
    pool,
    async close() {
      await pool.end();
      await dropDatabase(adminUrl, url);
      await cleanup();
    },
  };
}
