// The Redis store (REDIS_URL), shared by every server instance: per key a sorted set of the accepted
// requests' times, trimmed, counted and added to in one Lua script so that concurrent requests on
// any number of instances never let more than the limit through. Times come from the service's
// Clock (as everywhere else), so the headers and the window agree and tests can move time.
//
// The client is set up never to hold a request: no offline queue (a command while disconnected
// fails at once), no retries of a command, a command time-out, and endless reconnection with a
// short back-off so that a restarted Redis is used again within about a second. Failures surface
// as rejected promises; FailOpenLimiter turns them into answers.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { decision, WINDOW_MS, type RateDecision, type RateLimiter } from './window.js';

// KEYS[1] the window; ARGV: now, cutoff (now - window), limit, a unique member, the window in ms.
// Returns { accepted 0|1, requests in the window, oldest time }.
const HIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local accepted = 0
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  count = count + 1
  accepted = 1
end
if count > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2] or ARGV[1]
return { accepted, count, oldest }
`;

// KEYS[1] the window; ARGV: now, cutoff. Returns { requests in the window, oldest time }; writes nothing.
const PEEK = `
local after = '(' .. ARGV[2]
local first = redis.call('ZRANGEBYSCORE', KEYS[1], after, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return { redis.call('ZCOUNT', KEYS[1], after, '+inf'), first[2] or ARGV[1] }
`;

interface WindowScripts {
  rateHit(
    key: string,
    now: string,
    cutoff: string,
    limit: string,
    member: string,
    windowMs: string,
  ): Promise<[number, number, string]>;
  ratePeek(key: string, now: string, cutoff: string): Promise<[number, string]>;
}

export interface RedisLimiterOptions {
  readonly url: string;
  /** Prepended to every key, so that deployments (and test runs) sharing a Redis stay apart. */
  readonly prefix: string;
  /** How long a command may take before it is given up (the fail-open time-out). */
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Connection trouble (the client keeps reconnecting on its own). */
  readonly onConnectionError: (err: Error) => void;
}

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis & WindowScripts;
  private readonly clock: Clock;
  /** Makes members unique across instances and requests of the same millisecond. */
  private readonly instance = randomBytes(6).toString('base64url');
  private seq = 0;

  constructor(opts: RedisLimiterOptions) {
    this.clock = opts.clock;
    this.redis = new Redis(opts.url, {
      keyPrefix: opts.prefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A little after the fail-open time-out (which answers first): it only clears the command away.
      commandTimeout: opts.timeoutMs + 100,
      connectTimeout: Math.max(opts.timeoutMs, 1000),
      retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
      enableAutoPipelining: true,
      scripts: {
        rateHit: { lua: HIT, numberOfKeys: 1 },
        ratePeek: { lua: PEEK, numberOfKeys: 1, readOnly: true },
      },
    }) as Redis & WindowScripts;
    this.redis.on('error', opts.onConnectionError);
  }

  /** Resolves once connected, or after `ms` at most: a server that starts without Redis still starts. */
  async ready(ms: number): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = (): void => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.redis.once('ready', onReady);
    });
  }

  async hit(key: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now().getTime();
    const member = `${now}:${this.instance}:${(this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER)}`;
    const [accepted, count, oldest] = await this.redis.rateHit(
      key,
      String(now),
      String(now - WINDOW_MS),
      String(limit),
      member,
      String(WINDOW_MS),
    );
    return decision(limit, accepted === 1, count, Number(oldest), now);
  }

  async peek(key: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now().getTime();
    const [count, oldest] = await this.redis.ratePeek(key, String(now), String(now - WINDOW_MS));
    return decision(limit, count < limit, count, Number(oldest), now);
  }

  async close(): Promise<void> {
    // Nothing is waiting to be written; dropping the connection never blocks on a hung server.
    this.redis.disconnect();
  }
}
