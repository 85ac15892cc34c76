// The registry's SFTP server as the source (ssh2-sftp-client over ssh2). The server is a VShell
// whose AES-GCM ciphers fail with ssh2 while AES-CTR works, so the cipher list is given exactly:
// AES-CTR first, ChaCha20-Poly1305 only for a server without them, AES-GCM never.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import SftpClient from 'ssh2-sftp-client';
import type { CipherAlgorithm, ConnectConfig } from 'ssh2';
import { describeSource, type SftpSourceConfig } from '../../config/registry-source.js';
import { registryFiles, SOURCE_DIRECTORIES, type DirectoryEntry, type ListedFile, type RegistrySource, type RemoteStat } from './source.js';

export const SFTP_CIPHERS: CipherAlgorithm[] = ['aes128-ctr', 'aes192-ctr', 'aes256-ctr', 'chacha20-poly1305@openssh.com'];

/** Waits this long for the server's greeting and authentication. */
const READY_TIMEOUT_MS = 30_000;
/** A connection silent for 3 keepalives (30 s) is dropped rather than left hanging a download. */
const KEEPALIVE_MS = 10_000;
const KEEPALIVE_COUNT = 3;
/** SFTP status code for "no such file" (a listing's error; ssh2-sftp-client's stat says ENOENT). */
const NO_SUCH_FILE = 2;

/** OpenSSH's form of a host key fingerprint: `SHA256:` and the unpadded base64 digest. */
export const fingerprint = (key: Buffer): string => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

export class SftpSource implements RegistrySource {
  private client: SftpClient | null = null;
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
      ...(c.hostKeyFingerprint
        ? { hostVerifier: (key: Buffer) => fingerprint(key) === c.hostKeyFingerprint }
        : {}),
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
      this.negotiated = { cipher: n.cs.cipher, ...(n.cs.mac ? { mac: n.cs.mac } : {}), kex: n.kex, host_key: n.serverHostKey };
    });
    client.on('keyboard-interactive', (_name: string, _instructions: string, _lang: string, prompts: unknown[], finish: (answers: string[]) => void) =>
      finish(prompts.map(() => this.config.password)),
    );
    try {
      await client.connect(await this.connectOptions());
    } catch (err) {
      await client.end().catch(() => {});
      const message = (err as Error).message;
      throw new Error(/verification failed/i.test(message) ? `the server's host key is not REGISTRY_SFTP_HOST_KEY (${message})` : message);
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
          items = await client.list(dir);
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
    return this.withConnection((client) =>
      pipeline(client.createReadStream(file.path, { start: offset }), createWriteStream(dest, { flags: 'a' })),
    );
  }

  stat(file: ListedFile): Promise<RemoteStat | null> {
    return this.withConnection(async (client) => {
      try {
        const s = await client.stat(file.path);
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
    await client?.end().catch(() => {});
  }
}
