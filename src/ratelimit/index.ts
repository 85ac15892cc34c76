// The per-minute limit: a true sliding 60-second window per workspace (or per client address on the
// keyless routes), kept in process or, with REDIS_URL, in Redis shared by every instance behind the
// fail-open guard. The decision carries everything the response headers need.
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { FailOpenLimiter, type FailureReason } from './fail-open.js';
import { MemoryRateLimiter } from './memory.js';
import { RedisRateLimiter } from './redis.js';
import type { RateDecision, RateLimiter } from './window.js';

export { openWindow, type RateDecision, type RateLimiter } from './window.js';
export { FailOpenLimiter, STORE_PAUSE_MS, type FailureReason } from './fail-open.js';
export { MemoryRateLimiter } from './memory.js';
export { RedisRateLimiter } from './redis.js';
export { KEYLESS_PER_MINUTE, PUBLIC_SEARCH_PER_MINUTE, addressWindow, workspaceWindow } from './windows.js';

/** What building a limiter may use: settings, time, and where failures go. */
export interface LimiterContext {
  readonly config: Config;
  readonly clock: Clock;
  /** Counts a store failure (the `ratelimit_store_failures_total` metric). */
  readonly countFailure: (reason: FailureReason) => void;
  readonly warn: (fields: Record<string, unknown>, message: string) => void;
}

/**
 * The store the configuration asks for: Redis with REDIS_URL, failing open; else the in-process one,
 * which answers at once from memory and has nothing to guard (a guard's timer would cost more than it).
 */
export async function createRateLimiter(ctx: LimiterContext): Promise<RateLimiter> {
  const { config, clock } = ctx;
  if (!config.redisUrl) return new MemoryRateLimiter(clock);
  const redis = new RedisRateLimiter({
    url: config.redisUrl,
    prefix: config.rateLimitPrefix,
    timeoutMs: config.rateLimitTimeoutMs,
    clock,
    onConnectionError: connectionLog(ctx),
  });
  if (!(await redis.ready(config.rateLimitTimeoutMs)))
    ctx.warn({ timeout_ms: config.rateLimitTimeoutMs }, 'Redis is not ready; rate limits fail open until it is');
  return failOpen(redis, ctx);
}

/** Wraps a store in the fail-open guard of the configured time-out. */
export const failOpen = (store: RateLimiter, ctx: LimiterContext): RateLimiter =>
  new FailOpenLimiter(store, {
    timeoutMs: ctx.config.rateLimitTimeoutMs,
    clock: ctx.clock,
    count: ctx.countFailure,
    warn: ctx.warn,
  });

/** Redis connection errors repeat at every reconnection attempt: one log line per message and minute. */
function connectionLog(ctx: LimiterContext): (err: Error) => void {
  const logged = new Map<string, number>();
  return (err) => {
    const now = ctx.clock.now().getTime();
    if (now - (logged.get(err.message) ?? Number.NEGATIVE_INFINITY) < 60_000) return;
    logged.set(err.message, now);
    ctx.warn({ err }, 'Redis connection error (rate limits fail open while it lasts)');
  };
}

/** The rate-limit headers of docs/contract.md ("Rate limits"), all derived from one decision so they agree. */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(d.resetAt),
    ratelimit: `"default";r=${d.remaining};t=${d.resetSeconds}`,
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetSeconds),
  };
}
