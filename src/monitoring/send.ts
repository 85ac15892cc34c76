// One POST of a delivery: to the checked address, no redirect followed, a timeout, the response's first
// bytes kept for the delivery log.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RefusedTarget, resolveTarget } from './address.js';

/** A receiver that has not answered in this long has failed the attempt (and is retried). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The log keeps this much of a response body: enough for an error message. */
const EXCERPT_BYTES = 1024;

export interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  excerpt: string | null;
  error: string | null;
  ok: boolean;
}

export async function post(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
): Promise<Attempt> {
  const started = Date.now();
  const failed = (error: string, statusCode: number | null = null): Attempt => ({
    statusCode,
    latencyMs: Date.now() - started,
    excerpt: null,
    error,
    ok: false,
  });
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
        timeout: DELIVERY_TIMEOUT_MS,
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
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS} ms`)));
    req.on('error', (err) => resolve(failed(err.message)));
    req.end(body);
  });
}
