// The fail-open guard on mocked timers: a store that errs or does not answer in time lets the request
// through, counted and logged without flooding the log.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../src/clock.js';
import { FailOpenLimiter, type FailureReason, type RateDecision, type RateLimiter } from '../src/ratelimit/index.js';

const START = '2026-03-10T12:00:00.000Z';

describe('fail open', () => {
  const ok: RateDecision = { allowed: false, limit: 7, remaining: 0, resetAt: 1, resetSeconds: 3 };
  const never: RateLimiter = {
    hit: () => new Promise(() => {}),
    peek: () => new Promise(() => {}),
    close: async () => {},
  };
  const failing: RateLimiter = {
    hit: async () => Promise.reject(new Error('ECONNREFUSED')),
    peek: () => {
      throw new Error('sync');
    },
    close: async () => {},
  };
  const answering: RateLimiter = { hit: async () => ok, peek: async () => ok, close: async () => {} };

  function guarded(store: RateLimiter, timeoutMs = 1000) {
    const clock = new ManualClock(START);
    const failures: FailureReason[] = [];
    const logs: Array<Record<string, unknown>> = [];
    const limiter = new FailOpenLimiter(store, {
      timeoutMs,
      clock,
      count: (r) => failures.push(r),
      warn: (f) => logs.push(f),
      logIntervalMs: 10_000,
    });
    return { limiter, clock, failures, logs };
  }
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

  it('lets a request through once a store has not answered for 1 second (not before), and counts it', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { limiter, failures, logs } = guarded(never);
    let answer: RateDecision | null = null;
    void limiter.hit('ws:a', 60).then((d) => (answer = d));
    t.mock.timers.tick(999);
    await turn();
    assert.equal(answer, null);
    t.mock.timers.tick(1);
    await turn();
    assert.deepEqual(answer, {
      allowed: true,
      limit: 60,
      remaining: 59,
      resetAt: Date.parse(START) / 1000 + 60,
      resetSeconds: 60,
    });
    assert.deepEqual(failures, ['timeout']);
    assert.equal(logs.length, 1);
    assert.equal(logs[0]!.reason, 'timeout');
  });

  it('lets a request through at once when the store fails, and counts it', async () => {
    const { limiter, failures } = guarded(failing);
    assert.equal((await limiter.hit('k', 5)).allowed, true);
    assert.deepEqual(await limiter.peek('k', 5), {
      allowed: true,
      limit: 5,
      remaining: 5,
      resetAt: Date.parse(START) / 1000,
      resetSeconds: 0,
    });
    assert.deepEqual(failures, ['error', 'error']);
  });

  it('passes a timely answer through untouched, refusals included', async () => {
    const { limiter, failures } = guarded(answering);
    assert.deepEqual(await limiter.hit('k', 7), ok);
    assert.deepEqual(failures, []);
  });

  it('logs the first failure, then at most one line per interval with the count left out', async () => {
    const { limiter, clock, failures, logs } = guarded(failing);
    for (let i = 0; i < 5; i++) await limiter.hit('k', 5);
    assert.equal(logs.length, 1);
    clock.advance(10_000);
    await limiter.hit('k', 5);
    assert.equal(failures.length, 6);
    assert.deepEqual(
      logs.map((l) => l.failures_not_logged),
      [0, 4],
    );
  });
});
