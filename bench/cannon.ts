// One autocannon run in a child process, so that the load generator does not share the servers' event loop.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const autocannonBin = path.join(
  path.dirname(createRequire(import.meta.url).resolve('autocannon/package.json')),
  'autocannon.js',
);

export interface CannonRun {
  /** Requests a second. */
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, errors and timeouts. */
  failed: number;
  /** This process's CPU (the servers; autocannon runs apart) per request, in µs: the machine's other load disturbs
   *  it far less than the rate. */
  cpu: number;
}

export interface CannonOptions {
  url: string;
  key: string;
  seconds: number;
  connections: number;
  /** Requests a second to hold, or as fast as it goes. */
  rate?: number | null;
}

export function cannon({ url, key, seconds, connections, rate }: CannonOptions): Promise<CannonRun> {
  const cpuBefore = process.cpuUsage();
  const args = [autocannonBin, '-j', '-n', '-c', String(connections), '-d', String(seconds)];
  args.push('-H', `authorization=Bearer ${key}`);
  if (rate) args.push('-R', String(rate));
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const r = JSON.parse(out.trim().split('\n').pop()!) as {
        requests: { total: number };
        latency: { p50: number; p99: number };
        duration: number;
        non2xx: number;
        errors: number;
        timeouts: number;
      };
      const cpu = process.cpuUsage(cpuBefore);
      resolve({
        rps: r.requests.total / r.duration,
        p50: r.latency.p50,
        p99: r.latency.p99,
        failed: r.non2xx + r.errors + r.timeouts,
        cpu: (cpu.user + cpu.system) / Math.max(1, r.requests.total),
      });
    });
  });
}
