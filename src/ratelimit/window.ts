// The sliding window every store keeps: the accepted requests of the last 60 seconds per key. A
// request is accepted while fewer than `limit` lie in the window, so the (limit+1)-th request inside
// any 60 seconds is refused; refused requests are not recorded and do not prolong the wait.

export const WINDOW_MS = 60_000;

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Requests left in the window after this one: what the next request will meet. */
  readonly remaining: number;
  /** Unix seconds (rounded up) at which the oldest request in the window leaves it. */
  readonly resetAt: number;
  /** Seconds (rounded up) until that moment; 0 for an empty window, at least 1 when refused. */
  readonly resetSeconds: number;
}

export interface RateLimiter {
  /** Counts a request for `key` against `limit` a minute, unless the window is full. */
  hit(key: string, limit: number): Promise<RateDecision>;
  /** The window of `key` as the next request will meet it, without counting anything. */
  peek(key: string, limit: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/**
 * The decision for a window holding `count` accepted requests (this one included when accepted),
 * the oldest at `oldestMs`. The reset is when the oldest leaves: the moment a slot frees up.
 */
export function decision(
  limit: number,
  allowed: boolean,
  count: number,
  oldestMs: number,
  nowMs: number,
): RateDecision {
  const resetMs = count > 0 ? oldestMs + WINDOW_MS : nowMs;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetAt: Math.ceil(resetMs / 1000),
    resetSeconds: Math.max(allowed ? 0 : 1, Math.ceil((resetMs - nowMs) / 1000)),
  };
}

/** A window nothing has counted in: all `limit` requests left, nothing to wait for. */
export const openWindow = (limit: number, nowMs: number): RateDecision => decision(limit, true, 0, nowMs, nowMs);
