// REGISTRY_SOURCE: where the daily refresh finds the registry's files, a local directory or an
// SFTP server given as sftp://user:password@host[:port]/path.
import path from 'node:path';

/** The registry's own server keeps its files under this directory (docs/bulk-files.md). */
export const REGISTRY_SFTP_ROOT = '/Public/doc';

interface LocalSourceConfig {
  readonly kind: 'local';
  readonly dir: string;
}

export interface SftpSourceConfig {
  readonly kind: 'sftp';
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** From the URL; empty when a key is used. */
  readonly password: string;
  /** The directory holding `cor/` and `Quarterly/` (the registry's `/Public/doc` when the URL has no path). */
  readonly root: string;
  /** A private key file (REGISTRY_SFTP_KEY_FILE), tried before the password. */
  readonly keyFile: string | undefined;
  /** The server's host key fingerprint, `SHA256:...` as `ssh-keygen -l` prints it; unset: any host key. */
  readonly hostKeyFingerprint: string | undefined;
}

export type RegistrySourceConfig = LocalSourceConfig | SftpSourceConfig;

/** The source as logs and `--json` show it: never the password. */
export function describeSource(source: RegistrySourceConfig): string {
  if (source.kind === 'local') return source.dir;
  return `sftp://${encodeURIComponent(source.username)}@${source.host}:${source.port}${source.root}`;
}

/** Parses REGISTRY_SOURCE (and the SFTP key settings); throws a message naming what is wrong. */
export function parseRegistrySource(raw: string, keyFile: string, hostKey: string): RegistrySourceConfig | null {
  const value = raw.trim();
  if (!value) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return { kind: 'local', dir: path.resolve(value) };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('REGISTRY_SOURCE: not a valid URL (percent-encode @, : and / inside the user or password)');
  }
  if (url.protocol !== 'sftp:')
    throw new Error(
      `REGISTRY_SOURCE: ${url.protocol}// is not supported (a directory or sftp://user:password@host[:port]/path)`,
    );
  if (!url.hostname) throw new Error('REGISTRY_SOURCE: the sftp URL has no host');
  if (!url.username) throw new Error('REGISTRY_SOURCE: the sftp URL has no user (sftp://user:password@host/path)');
  if (!url.password && !keyFile)
    throw new Error('REGISTRY_SOURCE: the sftp URL has no password and REGISTRY_SFTP_KEY_FILE is not set');
  if (hostKey && !/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(hostKey)) {
    throw new Error(
      'REGISTRY_SFTP_HOST_KEY: expected a SHA256 fingerprint as ssh-keygen -l prints it ' +
        '(SHA256: and 43 base64 characters)',
    );
  }
  const root = decodeURIComponent(url.pathname).replace(/\/+$/, '');
  return {
    kind: 'sftp',
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 22,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    root: root || REGISTRY_SFTP_ROOT,
    keyFile: keyFile || undefined,
    hostKeyFingerprint: hostKey ? hostKey.replace(/=$/, '') : undefined,
  };
}
