// Redis for tests: REDIS_URL's server (CI sets it), with a random key prefix per test so that files
// run in parallel and repeated runs never meet; and, for the restart test, a redis-server of our own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL || undefined;

/** `skip` for tests that need REDIS_URL: false, or why they do not run. */
export const needsRedis: string | false = REDIS_URL
  ? false
  : 'REDIS_URL is not set (CI sets it; e.g. REDIS_URL=redis://127.0.0.1:6379)';

export const testPrefix = (): string => `test:rl:${randomBytes(6).toString('hex')}:`;

/** Deletes the keys under a test prefix. */
export async function dropKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** `skip` for tests that start their own redis-server. */
export const needsRedisServer: string | false =
  spawnSync('redis-server', ['--version']).status === 0
    ? false
    : 'no redis-server binary to start (and stop) a server of our own';

/** A redis-server of this test's own, without persistence, that the test may kill and restart. */
export class OwnRedis {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const own = new OwnRedis(await freePort());
    await own.restart();
    return own;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again, on the same port) and waits until it answers. */
  async restart(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const probe = new Redis(this.url, { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    probe.on('error', () => {}); // refused until the server listens: retried
    try {
      await probe.ping();
    } finally {
      probe.disconnect();
    }
  }

  /** Pauses (SIGSTOP) or resumes (SIGCONT) the server: a Redis that does not answer. */
  signal(sig: 'SIGSTOP' | 'SIGCONT'): void {
    this.child?.kill(sig);
  }

  /** Kills the server outright, as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await once(child, 'exit');
    this.child = null;
  }
}
