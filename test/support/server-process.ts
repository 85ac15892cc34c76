// The server from source in a process of its own, as `registry serve` runs it: for the tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { projectRoot } from '../../src/config/paths.js';

export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Starts `registry serve` with `env` over this process's environment; resolves once it listens. */
export async function serverProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/cli/main.ts'), 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => (d.toString().includes('listening on') ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return child;
}
