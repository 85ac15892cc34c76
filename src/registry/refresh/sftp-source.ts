// The registry's SFTP server as the source (ssh2-sftp-client over ssh2). The server is a VShell
// whose AES-GCM ciphers fail with ssh2 while AES-CTR works, so the cipher list is given exactly:
// AES-CTR first, ChaCha20-Poly1305 only for a server without them, AES-GCM never.
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import type { CipherAlgorithm, ConnectConfig, SFTPWrapper } from 'ssh2';
import { describeSource, type SftpSourceConfig } from '../../config/registry-source.js';
import {
  registryFiles,
  SOURCE_DIRECTORIES,
  type DirectoryEntry,
  type ListedFile,
  type RegistrySource,
  type RemoteStat,
} from './source.js';

const SFTP_CIPHERS: CipherAlgorithm[] = ['aes128-ctr', 'aes192-ctr', 'aes256-ctr', 'chacha20-poly1305@openssh.com'];

/** Waits this long for the server's greeting and authentication. */
const READY_TIMEOUT_MS = 30_000;
/** A connection silent for 3 keepalives (30 s) is dropped rather than left hanging a download. */
const KEEPALIVE_MS = 10_000;
const KEEPALIVE_COUNT = 3;
/**
 * Reads in flight at once, each of 32 kB (what a non-OpenSSH server takes in one request). One read
 * at a time (ssh2's read stream) moves 32 kB per round trip, under 1 MB/s to a server 40 ms away;
 * a window of them moves up to 1 MB per round trip.
 */
const READ_BYTES = 32 * 1024;
const READS_IN_FLIGHT = 32;
/**
 * An SFTP request sent just as its connection dies is never answered (ssh2 drops it silently), and
 * a server may stop answering while the connection stays up: a download waiting this long for the
 * next bytes gives up (the attempt fails, the next one reconnects and resumes).
 */
const STALL_MS = 120_000;
/** SFTP status code for "no such file" (a listing's error; ssh2-sftp-client's stat says ENOENT). */
const NO_SUCH_FILE = 2;

/** OpenSSH's form of a host key fingerprint: `SHA256:` and the unpadded base64 digest. */
const fingerprint = (key: Buffer): string =>
  `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** `promise`, or a failure once it has been pending for `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer from the server for ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Appends bytes `from` to `size` of a remote file to `dest`, with a window of reads in flight
 * but written strictly in order, so that what is on disk is always a whole prefix of the file (the
 * next attempt resumes from its length). ssh2's fastGet has the window but cannot resume.
 */
async function readInto(sftp: SFTPWrapper, remote: string, dest: string, from: number, size: number): Promise<void> {
  const handle = await within(
    new Promise<Buffer>((resolve, reject) => sftp.open(remote, 'r', (err, h) => (err ? reject(err) : resolve(h)))),
    STALL_MS,
    `opening ${remote}`,
  );
  const out = await open(dest, 'a');
  const inFlight = new Map<number, Promise<Buffer>>();
  const request = (position: number, length: number): void => {
    const read = new Promise<Buffer>((resolve, reject) =>
      sftp.read(handle, Buffer.allocUnsafe(length), 0, length, position, (err, n, buf) =>
        err ? reject(err) : resolve(buf.subarray(0, n)),
      ),
    );
    read.catch(() => {}); // awaited in order below; a connection lost fails them all at once
    inFlight.set(position, read);
  };
  try {
    let next = from;
    for (let at = from; at < size;) {
      for (; inFlight.size < READS_IN_FLIGHT && next < size; next += READ_BYTES)
        request(next, Math.min(READ_BYTES, size - next));
      const wanted = Math.min(READ_BYTES, size - at);
      const chunk = await within(inFlight.get(at)!, STALL_MS, `reading ${remote} at byte ${at}`);
      inFlight.delete(at);
      if (chunk.length === 0) throw new Error(`the file ends at byte ${at}, the listing said ${size}`);
      await out.write(chunk);
      at += chunk.length;
      // A server may answer with less than asked: ask again for the rest of that stretch.
      if (chunk.length < wanted) request(at, wanted - chunk.length);
    }
  } finally {
    await out.close();
  }
  // Only on a live connection: after a failure the caller drops the connection, handle and all.
  await within(
    new Promise<void>((resolve, reject) => sftp.close(handle, (err) => (err ? reject(err) : resolve()))),
    STALL_MS,
    `closing ${remote}`,
  );
}

export class SftpSource implements RegistrySource {
  private client: SftpClient | null = null;
  private sftp: SFTPWrapper | null = null;
  private negotiated: Record<string, string> = {};

  constructor(
    private readonly config: SftpSourceConfig,
    private readonly log: (line: string) => void,
  ) {}

  get description(): string {
    return describeSource(this.config);
  }

  private async connectOptions(): Promise<ConnectConfig> {
    const c = this.config;
    return {
      host: c.host,
      port: c.port,
      username: c.username,
      ...(c.password ? { password: c.password } : {}),
      ...(c.keyFile ? { privateKey: await readFile(c.keyFile) } : {}),
      // Servers that take the password only as a keyboard-interactive answer.
      tryKeyboard: Boolean(c.password),
      readyTimeout: READY_TIMEOUT_MS,
      keepaliveInterval: KEEPALIVE_MS,
      keepaliveCountMax: KEEPALIVE_COUNT,
      algorithms: { cipher: SFTP_CIPHERS },
      ...(c.hostKeyFingerprint ? { hostVerifier: (key: Buffer) => fingerprint(key) === c.hostKeyFingerprint } : {}),
    };
  }

  /** The open connection, or a new one (after a failure the old one is dropped, so a retry reconnects). */
  private async connection(): Promise<SftpClient> {
    if (this.client) return this.client;
    const client = new SftpClient('registry', {
      error: (err) => this.log(`sftp ${this.config.host}: ${(err as Error).message ?? String(err)}`),
      end: () => {},
      close: () => {},
    });
    client.on('handshake', (n: { cs: { cipher: string; mac: string }; kex: string; serverHostKey: string }) => {
      this.negotiated = {
        cipher: n.cs.cipher,
        ...(n.cs.mac ? { mac: n.cs.mac } : {}),
        kex: n.kex,
        host_key: n.serverHostKey,
      };
    });
    client.on(
      'keyboard-interactive',
      (_name: string, _instructions: string, _lang: string, prompts: unknown[], finish: (answers: string[]) => void) =>
        finish(prompts.map(() => this.config.password)),
    );
    try {
      this.sftp = await client.connect(await this.connectOptions());
    } catch (err) {
      await client.end().catch(() => {});
      const message = (err as Error).message;
      throw new Error(
        /verification failed/i.test(message)
          ? `the server's host key is not REGISTRY_SFTP_HOST_KEY (${message})`
          : message,
        { cause: err },
      );
    }
    this.client = client;
    return client;
  }

  /** Runs `work` on the connection; on failure drops the connection, so the next call starts afresh. */
  private async withConnection<T>(work: (client: SftpClient) => Promise<T>): Promise<T> {
    const client = await this.connection();
    try {
      return await work(client);
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  list(): Promise<ListedFile[]> {
    return this.withConnection(async (client) => {
      const entries: DirectoryEntry[] = [];
      for (const sub of SOURCE_DIRECTORIES) {
        const dir = path.posix.join(this.config.root, sub);
        let items: SftpClient.FileInfo[];
        try {
          items = await within(client.list(dir), STALL_MS, `listing ${dir}`);
        } catch (err) {
          // A layout directory that is absent is empty; the root must be there.
          if ((err as { code?: number }).code === NO_SUCH_FILE && sub !== '') continue;
          throw err;
        }
        for (const item of items.sort((a, b) => a.name.localeCompare(b.name))) {
          entries.push({
            name: item.name,
            path: path.posix.join(dir, item.name),
            isFile: item.type === '-',
            size: item.size,
            modifiedAt: new Date(item.modifyTime),
          });
        }
      }
      return registryFiles(entries);
    });
  }

  download(file: ListedFile, dest: string, offset: number): Promise<void> {
    return this.withConnection(() => readInto(this.sftp!, file.path, dest, offset, file.size));
  }

  stat(file: ListedFile): Promise<RemoteStat | null> {
    return this.withConnection(async (client) => {
      try {
        const s = await within(client.stat(file.path), STALL_MS, `stat ${file.path}`);
        return { size: s.size, modifiedAt: new Date(s.modifyTime) };
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT') return null;
        throw err;
      }
    });
  }

  details(): Record<string, string> {
    return this.negotiated;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.sftp = null;
    await client?.end().catch(() => {});
  }
}
