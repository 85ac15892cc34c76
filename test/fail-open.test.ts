// The fail-open guard on mocked timers: a store that errs or does not answer in time lets the request
// through, counted and logged without flooding the log; and through the app, an MCP call (two store
// calls) that waits out one time-out, as a REST call does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../src/clock.js';
import {
  failOpen,
  FailOpenLimiter,
  STORE_PAUSE_MS,
  type FailureReason,
  type RateDecision,
  type RateLimiter,
} from '../src/ratelimit/index.js';
import { testApp } from './support/app.js';

const START = '2026-03-10T12:00:00.000Z';
/** What the store answers the first request of a fresh 60-a-minute window. */
const FIRST_IN_WINDOW = {
  allowed: true,
  limit: 60,
  remaining: 59,
  resetAt: Date.parse(START) / 1000 + 60,
  resetSeconds: 60,
};

const never: RateLimiter = {
  hit: () => new Promise(() => {}),
  peek: () => new Promise(() => {}),
  close: async () => {},
};

describe('fail open', () => {
  const ok: RateDecision = { allowed: false, limit: 7, remaining: 0, resetAt: 1, resetSeconds: 3 };
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
    assert.deepEqual(answer, FIRST_IN_WINDOW);
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

  it('after a time-out, the next call fails open at once instead of waiting out another', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { limiter, failures, logs } = guarded(never);
    void limiter.peek('ws:a', 60);
    t.mock.timers.tick(1000);
    await turn();
    let answer: RateDecision | null = null;
    void limiter.hit('ws:a', 60).then((d) => (answer = d));
    await turn();
    assert.deepEqual(answer, FIRST_IN_WINDOW);
    assert.deepEqual(failures, ['timeout', 'paused']);
    assert.equal(logs.length, 1, 'the call let through at once is counted, not logged');
  });

  it('after the pause one call tries the store, the others fail open at once until it answers', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const asked: Array<(d: RateDecision) => void> = [];
    const held: RateLimiter = {
      hit: () => new Promise((r) => asked.push(r)),
      peek: () => new Promise((r) => asked.push(r)),
      close: async () => {},
    };
    const { limiter, failures } = guarded(held);
    void limiter.hit('ws:a', 60);
    t.mock.timers.tick(1000);
    await turn();
    await limiter.hit('ws:a', 60);
    t.mock.timers.tick(STORE_PAUSE_MS);
    void limiter.hit('ws:a', 60); // the probe
    t.mock.timers.tick(1000);
    await turn();
    assert.equal(asked.length, 2);
    await limiter.hit('ws:a', 60);
    assert.equal(asked.length, 2, 'a probe that timed out pauses the store again');
    t.mock.timers.tick(STORE_PAUSE_MS);
    const probe = limiter.hit('ws:a', 7);
    await limiter.hit('ws:a', 7);
    assert.equal(asked.length, 3, 'one probe at a time');
    asked[2]!(ok);
    assert.deepEqual(await probe, ok);
    void limiter.hit('ws:a', 7);
    assert.equal(asked.length, 4, 'the store answered: it is asked again');
    assert.deepEqual(failures, ['timeout', 'paused', 'timeout', 'paused', 'paused']);
  });
});

describe('a store that never answers, through the app', () => {
  it(
    'an MCP tools/call (admit peeks, the call hits) waits out one time-out, as REST',
    { timeout: 20_000 },
    async () => {
      const t = await testApp({ limiter: (_clock, ctx) => failOpen(never, ctx) });
      try {
        const { key } = await t.workspace('developer');
        const started = Date.now();
        const res = await t.app.http.inject({
          method: 'POST',
          url: '/mcp',
          headers: {
            authorization: `Bearer ${key.key}`,
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
          },
          payload: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'search_entities', arguments: { name: 'acme' } },
          }),
        });
        const waited = Date.now() - started;
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().result.isError, undefined, res.body);
        const metrics = (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
        assert.match(metrics, /^ratelimit_store_failures_total\{reason="timeout"\} 1$/m);
        assert.match(metrics, /^ratelimit_store_failures_total\{reason="paused"\} 1$/m);
        assert.ok(waited < 2 * t.config.rateLimitTimeoutMs, `waited ${waited} ms`);
      } finally {
        await t.close();
      }
    },
  );
});
