// Fail open (docs/contract.md, "Rate limits"): a store that errs or does not answer within the time-out
// lets the request through, as if its window held only this request. Under-counting is preferred
// to a server error or a stalled request. Each failure is counted; the log gets the first one and
// then at most one line per interval, so that an outage does not flood it.
import type { Clock } from '../clock.js';
import { decision, type RateDecision, type RateLimiter } from './window.js';

export type FailureReason = 'timeout' | 'error';

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
    return this.store.close();
  }

  private guard(
    ask: () => Promise<RateDecision>,
    fallback: (now: number) => RateDecision,
    key: string,
  ): Promise<RateDecision> {
    return new Promise((resolve) => {
      let settled = false;
      const fail = (reason: FailureReason, err?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
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
          resolve(d);
        },
        (err: unknown) => fail('error', err),
      );
    });
  }

  private failed(reason: FailureReason, key: string, err: unknown): void {
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
