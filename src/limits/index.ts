// The per-minute limit: a true sliding 60-second window per workspace (or per client IP on the
// keyless routes). A store counts; the decision carries everything the response headers need.
import type { Clock } from '../clock.js';

export const WINDOW_MS = 60_000;

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in the window after this one. */
  readonly remaining: number;
  /** Unix seconds at which the oldest request in the window leaves it. */
  readonly resetAt: number;
  /** Seconds until that moment (at least 1 when the window is full). */
  readonly resetSeconds: number;
}

export interface RateLimiter {
  /** Counts a request for `key` against `limit` a minute, unless the window is full. */
  hit(key: string, limit: number): Promise<RateDecision>;
  /** The window for `key` as it stands, counting nothing (for free requests' headers). */
  peek(key: string, limit: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/** In-process store: the accepted requests' times per key, oldest first. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  async hit(key: string, limit: number): Promise<RateDecision> {
    return this.decide(key, limit, true);
  }

  async peek(key: string, limit: number): Promise<RateDecision> {
    return this.decide(key, limit, false);
  }

  private decide(key: string, limit: number, count: boolean): RateDecision {
    const now = this.clock.now().getTime();
    let times = this.windows.get(key);
    if (!times) this.windows.set(key, (times = []));
    let expired = 0;
    while (expired < times.length && (times[expired] as number) <= now - WINDOW_MS) expired++;
    if (expired > 0) times.splice(0, expired);
    const allowed = times.length < limit;
    if (allowed && count) times.push(now);
    const oldest = times[0] ?? now;
    const resetMs = oldest + WINDOW_MS;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - times.length),
      resetAt: Math.ceil(resetMs / 1000),
      resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil((resetMs - now) / 1000)),
    };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}

/** The rate-limit headers of decisions.md, all derived from one decision so they agree. */
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
