// API keys: `svc_live_` or `svc_test_` and 32 base-62 characters from a CSPRNG. Only an
// HMAC-SHA256 of a key under the server's pepper is stored; the raw key is shown once.
import { createHmac, randomInt } from 'node:crypto';

export type KeyKind = 'live' | 'test';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_FORMAT = /^svc_(live|test)_[0-9A-Za-z]{32}$/;

/** `n` base-62 characters, each drawn uniformly (crypto.randomInt rejects bias). */
export function base62(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += BASE62[randomInt(62)];
  return s;
}

export function newKey(kind: KeyKind): string {
  return `svc_${kind}_${base62(32)}`;
}

function isWellFormedKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

export function hashKey(key: string, pepper: string): Buffer {
  return createHmac('sha256', pepper).update(key).digest();
}

/** What a key may be listed as: its kind and first and last characters, never enough to use it. */
export function keyHint(key: string): string {
  return `${key.slice(0, 13)}…${key.slice(-4)}`;
}

export type Credentials = { kind: 'none' } | { kind: 'invalid' } | { kind: 'key'; key: string };

type Headers = Record<string, string | string[] | undefined>;

const single = (v: string | string[] | undefined): string | undefined | null =>
  Array.isArray(v) ? (v.length === 1 ? v[0] : null) : v;

/**
 * The key a request presents: `Authorization: Bearer <key>` (scheme in any case, one space) or
 * `X-API-Key`. Both present and different, a repeated header, another scheme, or a key not of the
 * key format are all `invalid`; the caller answers every one of them with the same 401.
 */
export function presentedKey(headers: Headers): Credentials {
  const auth = single(headers.authorization);
  const header = single(headers['x-api-key']);
  if (auth === null || header === null) return { kind: 'invalid' };
  let fromAuth: string | undefined;
  if (auth !== undefined) {
    const m = /^Bearer (\S+)$/i.exec(auth);
    if (!m) return { kind: 'invalid' };
    fromAuth = m[1];
  }
  if (fromAuth !== undefined && header !== undefined && fromAuth !== header) return { kind: 'invalid' };
  const key = fromAuth ?? header;
  if (key === undefined) return { kind: 'none' };
  return isWellFormedKey(key) ? { kind: 'key', key } : { kind: 'invalid' };
}
