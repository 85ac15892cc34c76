// `npm run bench:sftp -- [--mb N] [--rtt MS]`
// Download speed of the refresh's SFTP source from a local OpenSSH server (test/support/sftp.ts)
// through a relay that delays each direction by half the round trip, against ssh2's read stream
// (one read in flight at a time), the obvious way to resume a download. Prints MB/s.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import SftpClient from 'ssh2-sftp-client';
import { SftpSource } from '../src/registry/refresh/sftp-source.js';
import { sftpUnavailable, startSftpServer } from '../test/support/sftp.js';

const { values: args } = parseArgs({
  options: { mb: { type: 'string', default: '50' }, rtt: { type: 'string', default: '40' } },
});
const mb = Number(args.mb);
const rtt = Number(args.rtt);

const unavailable = sftpUnavailable();
if (unavailable) {
  process.stderr.write(`${unavailable}\n`);
  process.exit(1);
}

/** Forwards to `port`, holding every chunk back rtt/2 ms in each direction. */
async function laggingRelay(port: number): Promise<{ port: number; close(): void }> {
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    const lag = (from: net.Socket, to: net.Socket): void => {
      from.on('data', (d: Buffer) => setTimeout(() => to.write(d), rtt / 2));
    };
    lag(client, upstream);
    lag(upstream, client);
    for (const s of [client, upstream]) s.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

const server = await startSftpServer();
const relay = await laggingRelay(server.port);
const work = await mkdtemp(path.join(tmpdir(), 'rl-bench-sftp-'));
try {
  const dir = path.join(server.root, 'Public', 'doc', 'Quarterly', 'Cor');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'cordata.zip'), randomBytes(mb * 1e6));
  const config = {
    kind: 'sftp' as const,
    host: '127.0.0.1',
    port: relay.port,
    username: server.username,
    password: '',
    root: path.join(server.root, 'Public', 'doc'),
    keyFile: server.keyFile,
    hostKeyFingerprint: server.hostKeyFingerprint,
  };
  const source = new SftpSource(config, () => {});
  const [file] = await source.list();
  const timed = async (what: string, download: (dest: string) => Promise<void>): Promise<void> => {
    const dest = path.join(work, what.replace(/\W+/g, '-'));
    const started = Date.now();
    await download(dest);
    const secs = (Date.now() - started) / 1000;
    if ((await stat(dest)).size !== file!.size) throw new Error(`${what}: incomplete`);
    process.stdout.write(
      `${what.padEnd(34)} ${mb} MB, ${rtt} ms round trip: ${secs.toFixed(1)} s, ${(mb / secs).toFixed(1)} MB/s\n`,
    );
  };
  await timed('refresh source (window of reads)', (dest) => source.download(file!, dest, 0));
  process.stdout.write(`negotiated: ${JSON.stringify(source.details())}\n`);
  await source.close();

  const plain = new SftpClient();
  await plain.connect({
    host: '127.0.0.1',
    port: relay.port,
    username: server.username,
    privateKey: await readFile(server.keyFile),
  });
  await timed('ssh2 read stream (one at a time)', (dest) =>
    pipeline(plain.createReadStream(file!.path), createWriteStream(dest)),
  );
  await plain.end();
} finally {
  relay.close();
  await server.stop();
  await rm(work, { recursive: true, force: true });
}
