// What the benches share before they measure: the server built, a database of their own, and the compiled CLI
// run as an operator runs it (docs/benchmarks.md, "Method").
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { serviceNodeOptions } from '../src/config/heap.js';
import { projectRoot } from '../src/config/paths.js';
import { startEmbedded } from '../src/db/embedded.js';

export const work = path.join(projectRoot, 'bench', 'work');
export const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** A bench database `name`: on DATABASE_URL's server or on an embedded one under bench/work. */
export async function database(name: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = process.env.DATABASE_URL ? null : await startEmbedded(work, { name: 'pg' });
  const adminUrl = process.env.DATABASE_URL ?? server!.adminUrl;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  if (!(await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount)
    await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), stop: async () => server?.stop() };
}

/** Runs the compiled CLI (what an operator runs), its log passed through; resolves with its stdout. */
export function cli(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, 'dist', 'cli', 'main.js'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`registry ${args[0]} exited with ${code}`)),
    );
  });
}

export async function build(): Promise<void> {
  log('building the server');
  await new Promise((resolve, reject) =>
    spawn('npm', ['run', 'build', '--silent'], { cwd: projectRoot, stdio: 'inherit' }).on('exit', (c) =>
      c === 0 ? resolve(null) : reject(new Error('build failed')),
    ),
  );
}

/** The arguments every bench generates its N entities with (a fixed end date, so the same files every time). */
export const generateArgs = (entities: number, dir: string, seed: number): string[] => [
  'generate',
  '--entities',
  String(entities),
  '--out',
  dir,
  '--seed',
  String(seed),
  '--days',
  '10',
  '--end-date',
  '2026-11-20',
  '--json',
];

/**
 * Requests a second a Fastify route serves on this machine, 16 connections: bare (the detail target's
 * yardstick) or, given a pool, making one round trip to PostgreSQL (`SELECT 1`), which is the most
 * any route can serve that must ask the database on every request, as the gate must (spec: a revoked
 * key fails at once, no cache window).
 */
export async function routeRps(pool?: pg.Pool): Promise<number> {
  const app = Fastify();
  app.get('/route', async () => ({
    data: pool ? (await pool.query({ name: 'one', text: 'SELECT 1 AS ok' })).rows[0] : { ok: 1 },
    meta: { request_id: 'req_x' },
  }));
  const addr = await app.listen({ port: 0, host: '127.0.0.1' });
  const r = await autocannon({ url: `${addr}/route`, connections: 16, duration: 8 });
  await app.close();
  return r.requests.average;
}

/** The machine a result was measured on, with its yardstick: the requests a second of a bare route (routeRps). */
export async function machine(): Promise<Record<string, unknown>> {
  return {
    cores: os.availableParallelism(),
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    cpu: os.cpus()[0]?.model ?? '?',
    node: process.version,
    bare_fastify_rps: Math.round(await routeRps()),
  };
}

/**
 * The Node options a bench's server runs with (`--node-options`, or the start scripts' when absent) and the suffix of
 * its result's label: none for the start scripts', `-node-options` for others, `-no-node-options` for "".
 */
export function serverNodeOptions(given: string | undefined): { options: string; suffix: string } {
  if (given === undefined) return { options: serviceNodeOptions().join(' '), suffix: '' };
  return { options: given, suffix: given === '' ? '-no-node-options' : '-node-options' };
}

/** Writes `out` as bench/results/<label>.json; its path. */
export async function writeResult(label: string, out: unknown): Promise<string> {
  await mkdir(path.join(projectRoot, 'bench', 'results'), { recursive: true });
  const json = path.join(projectRoot, 'bench', 'results', `${label}.json`);
  await writeFile(json, `${JSON.stringify(out, null, 2)}\n`);
  return json;
}

/** A process's resident memory now, in MiB (0 once it is gone). */
export const rssMiB = async (pid: number): Promise<number> => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};
