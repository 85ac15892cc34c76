// The server in a process of its own, as `registry serve` runs it: for the tests that kill it and the benches that
// load it (a server apart from the load generator's event loop).
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { serviceNodeOptions } from '../../src/config/heap.js';
import { projectRoot } from '../../src/config/paths.js';

export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

export interface ServerProcessOptions {
  /** Runs the compiled server of this checkout (its dist/cli/main.js) rather than this one's source through tsx. */
  compiledIn?: string;
  /** Where the server's standard output goes (its log lines at LOG_LEVEL). */
  stdout?: 'ignore' | 'inherit';
  /** `registry worker` (webhook delivery alone) rather than `registry serve`. */
  command?: keyof typeof READY;
  /** Node's own options before the entry point (V8's heap limits, as the start scripts give them). */
  nodeArgs?: readonly string[];
}

/** The line each command writes to stderr once it runs. */
const READY = { serve: 'listening on', worker: 'delivering webhooks' };

/** Starts `registry serve` (or `worker`) with `env` over this process's environment; resolves once it runs. */
export async function serverProcess(
  env: Record<string, string>,
  opts: ServerProcessOptions = {},
): Promise<ChildProcess> {
  const entry = opts.compiledIn
    ? [path.join(opts.compiledIn, 'dist', 'cli', 'main.js')]
    : ['--import', 'tsx', path.join(projectRoot, 'src', 'cli', 'main.ts')];
  const command = opts.command ?? 'serve';
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...entry, command], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', opts.stdout ?? 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => (d.toString().includes(READY[command]) ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return child;
}

/**
 * The compiled server of checkout `root` on `url`, as the benches load it: on a free port, no scheduled jobs, snapshots
 * nor webhook delivery, its log passed through, stopped when the bench is interrupted; resolves with its address.
 * Node runs with the options `npm start` gives it (that checkout's package.json), or `nodeOptions` instead.
 */
export async function benchServer(
  root: string,
  url: string,
  pepper: string,
  dataDir: string,
  nodeOptions?: string,
): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = await serverProcess(
    {
      DATABASE_URL: url,
      PORT: String(port),
      SCHEDULER: '0',
      WEBHOOKS_DELIVERY: '0',
      // The benches time requests: a snapshot of the whole dataset beside them would be timed too.
      SNAPSHOTS: '0',
      API_KEY_PEPPER: pepper,
      DATA_DIR: dataDir,
    },
    {
      compiledIn: root,
      stdout: 'inherit',
      nodeArgs: nodeOptions === undefined ? serviceNodeOptions(root) : nodeOptions.split(/\s+/).filter(Boolean),
    },
  );
  // An interrupted bench must not leave its server running.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => (child.kill('SIGTERM'), process.exit(130)));
  return { base: `http://127.0.0.1:${port}`, child };
}
