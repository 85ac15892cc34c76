// Fail open (docs/contract.md, "Rate limits"): a store that errs or does not answer within the time-out
// lets the request through, as if its window held only this request. Under-counting is preferred
// to a server error or a stalled request. After a time-out the store is left alone for a pause (a small
// circuit breaker), so that a request making several store calls (MCP) waits out one time-out, not one
// per call. Each failure is counted; the log gets the first one and then at most one line per interval,
// so that an outage does not flood it.
import type { Clock } from '../clock.js';
import { decision, type RateDecision, type RateLimiter } from './window.js';

/** `paused`: let through without asking the store, during the pause after a time-out. */
export type FailureReason = 'timeout' | 'error' | 'paused';

/** As long as the Redis client's longest reconnection back-off (redis.ts): a store back is used about as soon. */
export const STORE_PAUSE_MS = 1_000;

/**
 * `closed`: calls ask the store. `open`: calls fail open at once (paused after a time-out, or while a
 * probe is out). `half-open`: the pause is over, and the next call tries the store again.
 */
type Breaker = 'closed' | 'open' | 'half-open';

export interface FailOpenOptions {
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Counts a failure (the metric). */
  readonly count: (reason: FailureReason) => void;
  readonly warn: (fields: Record<string, unknown>, message: string) => void;
  /** Minimum time between two log lines about failures. */
  readonly logIntervalMs?: number;
}

export class FailOpenLimiter implements RateLimiter {
  private lastLog = Number.NEGATIVE_INFINITY;
  private unlogged = 0;
  private breaker: Breaker = 'closed';
  private pause: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: RateLimiter,
    private readonly opts: FailOpenOptions,
  ) {}

  hit(key: string, limit: number): Promise<RateDecision> {
    return this.guard(
      () => this.store.hit(key, limit),
      (now) => decision(limit, true, 1, now, now),
      key,
    );
  }

  peek(key: string, limit: number): Promise<RateDecision> {
    return this.guard(
      () => this.store.peek(key, limit),
      (now) => decision(limit, true, 0, now, now),
      key,
    );
  }

  close(): Promise<void> {
    clearTimeout(this.pause);
    return this.store.close();
  }

  private guard(
    ask: () => Promise<RateDecision>,
    fallback: (now: number) => RateDecision,
    key: string,
  ): Promise<RateDecision> {
    if (this.breaker === 'open') {
      this.failed('paused', key);
      return Promise.resolve(fallback(this.opts.clock.now().getTime()));
    }
    // This call is the probe: the others skip the store until it answers or times out.
    if (this.breaker === 'half-open') this.breaker = 'open';
    return new Promise((resolve) => {
      let settled = false;
      const fail = (reason: FailureReason, err?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // An error comes at once, so asking again costs nothing: only a time-out pauses the store.
        if (reason === 'timeout') this.pauseStore();
        else this.closeBreaker();
        this.failed(reason, key, err);
        resolve(fallback(this.opts.clock.now().getTime()));
      };
      const timer = setTimeout(() => fail('timeout'), this.opts.timeoutMs);
      let answer: Promise<RateDecision>;
      try {
        answer = ask();
      } catch (err) {
        fail('error', err);
        return;
      }
      answer.then(
        (d) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          this.closeBreaker();
          resolve(d);
        },
        (err: unknown) => fail('error', err),
      );
    });
  }

  /** Opens the breaker for STORE_PAUSE_MS from now: the next call of the request that timed out skips the store. */
  private pauseStore(): void {
    clearTimeout(this.pause);
    this.breaker = 'open';
    this.pause = setTimeout(() => {
      this.pause = undefined;
      this.breaker = 'half-open';
    }, STORE_PAUSE_MS);
    this.pause.unref();
  }

  private closeBreaker(): void {
    clearTimeout(this.pause);
    this.pause = undefined;
    this.breaker = 'closed';
  }

  private failed(reason: FailureReason, key: string, err?: unknown): void {
    this.opts.count(reason);
    const now = this.opts.clock.now().getTime();
    if (now - this.lastLog < (this.opts.logIntervalMs ?? 10_000)) {
      this.unlogged++;
      return;
    }
    const fields: Record<string, unknown> = {
      reason,
      key,
      timeout_ms: this.opts.timeoutMs,
      failures_not_logged: this.unlogged,
    };
    if (err !== undefined) fields.err = err;
    this.opts.warn(fields, 'rate-limit store failed; request let through (fail open)');
    this.lastLog = now;
    this.unlogged = 0;
  }
}
