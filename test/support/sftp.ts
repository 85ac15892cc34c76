// A real OpenSSH SFTP server for tests: Debian's sshd, run unprivileged on a loopback port with its
// own host key and a key-authorised user, serving a temporary directory; and a TCP relay in front
// of it that can cut or refuse connections, as a flaky network would.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

const SSHD = '/usr/sbin/sshd';

/**
 * Why the SFTP tests cannot run here, or null when they can. On CI (CI set) a missing sshd is a
 * failure, not a skip: .ci/run installs it.
 */
export function sftpUnavailable(): string | null {
  if (existsSync(SSHD)) return null;
  return `${SSHD} not found: install Debian's openssh-server (apt-get install -y openssh-server) to run the SFTP tests`;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The account sshd runs as and lets in: the test's own, or `nobody` when the tests run as root. */
function serverUser(): { name: string; uid: number; gid: number } {
  const me = userInfo();
  if (me.uid !== 0) return { name: me.username, uid: me.uid, gid: me.gid };
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { name: 'nobody', uid: id('-u'), gid: id('-g') };
}

export interface SftpServer {
  readonly port: number;
  /** The directory it serves (absolute paths on the server are this machine's). */
  readonly root: string;
  readonly username: string;
  /** The client's private key (REGISTRY_SFTP_KEY_FILE). */
  readonly keyFile: string;
  /** The host key's fingerprint as `ssh-keygen -l` prints it (REGISTRY_SFTP_HOST_KEY). */
  readonly hostKeyFingerprint: string;
  /** What sshd wrote to stderr (its log), for failure messages. */
  log(): string;
  stop(): Promise<void>;
}

export async function startSftpServer(): Promise<SftpServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-sshd-'));
  const user = serverUser();
  await chmod(dir, 0o755);
  const root = path.join(dir, 'srv');
  await mkdir(root, { mode: 0o755 });
  const hostKey = path.join(dir, 'host_ed25519');
  const keyFile = path.join(dir, 'client_ed25519');
  for (const key of [hostKey, keyFile])
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'registry-lookup-test', '-f', key]);
  // sshd refuses a host key others can read, and must be able to read it as the user it runs as.
  await chown(hostKey, user.uid, user.gid);
  await chmod(hostKey, 0o600);
  const hostKeyFingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`], {
    encoding: 'utf8',
  }).split(' ')[1]!;
  const authorizedKeys = path.join(dir, 'authorized_keys');
  await writeFile(authorizedKeys, await readFile(`${keyFile}.pub`), { mode: 0o644 });
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      'PidFile none',
      `AuthorizedKeysFile ${authorizedKeys}`,
      'StrictModes no',
      // PAM's account check (through its setgid helper) lets `nobody` in, whose shadow entry sshd
      // itself would take for a locked account.
      'UsePAM yes',
      // An unprivileged sshd cannot check passwords (it cannot read /etc/shadow): keys only.
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${user.name}`,
      'Subsystem sftp internal-sftp',
      'ForceCommand internal-sftp',
      // AES-GCM offered first, as the registry's server does: the client must still pick AES-CTR.
      'Ciphers aes128-gcm@openssh.com,aes256-gcm@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  let stderr = '';
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], {
    uid: user.uid,
    gid: user.gid,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not start within 10 s:\n${stderr}`)), 10_000);
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('Server listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sshd exited with ${code}:\n${stderr}`));
    });
  });
  return {
    port,
    root,
    username: user.name,
    keyFile,
    hostKeyFingerprint,
    log: () => stderr,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What the relay does with the next connections: pass them, refuse them, or cut them after some bytes. */
type Behaviour = { pass: true } | { refuse: true } | { cutAfterBytes: number };

export interface Relay {
  readonly port: number;
  /** Behaviours for the next connections, one each, in order; connections after them pass. */
  plan(behaviours: Behaviour[]): void;
  /** Bytes sent from the server to clients, in all. */
  readonly downstreamBytes: number;
  stop(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<Relay> {
  let queue: Behaviour[] = [];
  let downstream = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    const behaviour = queue.shift() ?? { pass: true };
    if ('refuse' in behaviour) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    let sent = 0;
    upstream.on('data', (chunk: Buffer) => {
      if ('cutAfterBytes' in behaviour && sent + chunk.length > behaviour.cutAfterBytes) {
        const keep = behaviour.cutAfterBytes - sent;
        if (keep > 0) client.write(chunk.subarray(0, keep));
        downstream += Math.max(keep, 0);
        // The connection dies mid-transfer: both sides see it reset.
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      sent += chunk.length;
      downstream += chunk.length;
      client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    plan(behaviours) {
      queue = [...behaviours];
    },
    get downstreamBytes() {
      return downstream;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
