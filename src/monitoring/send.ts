// One POST of a delivery: to the checked address, no redirect followed, within a deadline, the response's
// first bytes kept for the delivery log.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RefusedTarget, resolveTarget } from './address.js';

/** The whole attempt (lookup, connect, TLS, headers and body) must end by then: a receiver answering a byte at
 *  a time would otherwise hold its delivery, and a slot of the loop, as long as it likes. */
export const DELIVERY_DEADLINE_MS = 10_000;
const DEADLINE_ERROR = `no complete answer within ${DELIVERY_DEADLINE_MS / 1000} s`;
/** The log keeps this much of a response body: enough for an error message. */
const EXCERPT_BYTES = 1024;

export interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  ok: boolean;
}

const failure = (started: number, error: string, statusCode: number | null = null): Attempt => ({
  statusCode,
  latencyMs: Date.now() - started,
  excerpt: null,
  error,
  ok: false,
});

/** POSTs `body`; an attempt without a complete answer at the deadline is aborted and failed. */
export async function post(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
): Promise<Attempt> {
  const started = Date.now();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Attempt>((resolve) => {
    timer = setTimeout(() => {
      resolve(failure(started, DEADLINE_ERROR));
      abort.abort();
    }, DELIVERY_DEADLINE_MS);
  });
  try {
    return await Promise.race([send(rawUrl, body, headers, allowPrivate, abort.signal, started), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The request itself; `signal` destroys it once the deadline has answered for it. */
async function send(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
  signal: AbortSignal,
  started: number,
): Promise<Attempt> {
  const failed = (error: string, statusCode: number | null = null): Attempt => failure(started, error, statusCode);
  let target;
  try {
    target = await resolveTarget(rawUrl, allowPrivate);
  } catch (err) {
    if (err instanceof RefusedTarget) return failed(`refused: ${err.message}`);
    throw err;
  }
  const pinned: LookupFunction = (_host, opts, cb) => {
    if (opts.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<Attempt>((resolve) => {
    const req = client.request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        signal,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'registry-lookup-webhooks/1',
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < EXCERPT_BYTES) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          // A redirect is not followed: it counts as a failure, like any status outside 2xx.
          const ok = code >= 200 && code < 300;
          resolve({
            statusCode: code,
            latencyMs: Date.now() - started,
            excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
            error: ok ? null : `HTTP ${code}`,
            ok,
          });
        });
        res.on('error', (err) => resolve(failed(err.message, res.statusCode ?? null)));
      },
    );
    req.on('error', (err) => resolve(failed(err.message)));
    req.end(body);
  });
}
