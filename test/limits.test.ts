// The rate-limit stores: one suite run against the in-process store and against Redis (REDIS_URL),
// on a hand-moved clock, and what is particular to each store. The fail-open guard: test/fail-open.test.ts.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ManualClock } from '../src/clock.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateDecision, type RateLimiter } from '../src/ratelimit/index.js';
import { dropKeys, needsRedis, REDIS_URL, testPrefix } from './support/redis.js';

const START = '2026-03-10T12:00:00.000Z';
const SECOND = 1000;

interface StoreUnderTest {
  readonly name: string;
  readonly skip: string | false;
  /** A store on `clock`; stores made with the same `shared` token count in one place. */
  make(clock: ManualClock, shared: string): Promise<RateLimiter>;
  cleanup(): Promise<void>;
}

const prefixes = new Map<string, string>();
const prefixOf = (shared: string): string => {
  if (!prefixes.has(shared)) prefixes.set(shared, testPrefix());
  return prefixes.get(shared)!;
};

/** A Redis store, connected (it refuses commands until then rather than queueing them). */
async function redisStore(prefix: string, clock: ManualClock): Promise<RedisRateLimiter> {
  const store = new RedisRateLimiter({
    url: REDIS_URL!,
    prefix,
    timeoutMs: 1000,
    clock,
    onConnectionError: (err) => assert.fail(err),
  });
  assert.ok(await store.ready(5000), `Redis at ${REDIS_URL} is not ready`);
  return store;
}

const memoryStores = new Map<string, MemoryRateLimiter>();
const STORES: StoreUnderTest[] = [
  {
    name: 'in-process store',
    skip: false,
    make: async (clock, shared) => {
      if (!memoryStores.has(shared)) memoryStores.set(shared, new MemoryRateLimiter(clock));
      return memoryStores.get(shared)!;
    },
    cleanup: async () => memoryStores.clear(),
  },
  {
    name: 'Redis store',
    skip: needsRedis,
    make: (clock, shared) => redisStore(prefixOf(shared), clock),
    cleanup: async () => {
      for (const prefix of prefixes.values()) await dropKeys(REDIS_URL!, prefix);
    },
  },
];

/** Hits `n` times, returning the decisions. */
async function hits(store: RateLimiter, key: string, limit: number, n: number): Promise<RateDecision[]> {
  const out: RateDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await store.hit(key, limit));
  return out;
}

for (const s of STORES) {
  describe(s.name, { skip: s.skip }, () => {
    const opened: RateLimiter[] = [];
    let n = 0;
    /** A fresh store (and key space) per test. */
    const fresh = async (
      clock = new ManualClock(START),
    ): Promise<{ store: RateLimiter; clock: ManualClock; shared: string }> => {
      const shared = `t${n++}`;
      const store = await s.make(clock, shared);
      opened.push(store);
      return { store, clock, shared };
    };
    after(async () => {
      for (const store of opened) await store.close();
      await s.cleanup();
    });

    it('passes `limit` in 60 s, refuses the next with the true wait, lets one in when the oldest leaves', async () => {
      const { store, clock } = await fresh();
      const passed: RateDecision[] = [];
      for (let i = 0; i < 30; i++) {
        passed.push(await store.hit('ws:a', 30));
        clock.advance(SECOND);
      }
      assert.ok(passed.every((d) => d.allowed));
      assert.deepEqual(
        passed.map((d) => d.remaining),
        Array.from({ length: 30 }, (_, i) => 29 - i),
      );
      // At t = 30 s the oldest (t = 0) leaves at t = 60 s: 30 s to wait.
      const refused = await store.hit('ws:a', 30);
      assert.deepEqual(refused, {
        allowed: false,
        limit: 30,
        remaining: 0,
        resetAt: Date.parse(START) / 1000 + 60,
        resetSeconds: 30,
      });
      clock.advance(29_999);
      assert.equal((await store.hit('ws:a', 30)).allowed, false);
      assert.equal((await store.hit('ws:a', 30)).resetSeconds, 1); // 1 ms, rounded up
      clock.advance(1);
      const again = await store.hit('ws:a', 30);
      assert.equal(again.allowed, true);
      assert.equal(again.remaining, 0);
      assert.equal(again.resetSeconds, 1); // the next oldest (t = 1 s) leaves 1 s later
      assert.equal((await store.hit('ws:a', 30)).allowed, false);
    });

    it('slides: a burst across a minute boundary is refused, unlike a fixed window', async () => {
      const { store, clock } = await fresh(new ManualClock('2026-03-10T12:00:59.000Z'));
      assert.ok((await hits(store, 'k', 3, 3)).every((d) => d.allowed));
      clock.set('2026-03-10T12:01:01.000Z'); // a new calendar minute, but only 2 s later
      const refused = await store.hit('k', 3);
      assert.equal(refused.allowed, false);
      assert.equal(refused.resetSeconds, 58);
      assert.equal(refused.resetAt, Date.parse('2026-03-10T12:01:59.000Z') / 1000);
    });

    it('does not count refused requests, so hammering does not prolong the wait', async () => {
      const { store, clock } = await fresh();
      await hits(store, 'k', 2, 2);
      for (let i = 0; i < 10; i++) {
        clock.advance(5 * SECOND);
        assert.equal((await store.hit('k', 2)).allowed, false);
      }
      clock.advance(10 * SECOND); // t = 60 s: both accepted requests (t = 0) have left
      const d = await store.hit('k', 2);
      assert.deepEqual([d.allowed, d.remaining], [true, 1]);
    });

    it('keeps keys apart', async () => {
      const { store } = await fresh();
      await hits(store, 'ws:one', 2, 2);
      assert.equal((await store.hit('ws:one', 2)).allowed, false);
      assert.deepEqual((await store.hit('ws:two', 2)).remaining, 1);
      assert.deepEqual((await store.hit('ip:203.0.113.9:publicSearch', 10)).remaining, 9);
    });

    it('peeks without counting: a peek shows what the next request meets', async () => {
      const { store, clock } = await fresh();
      const empty = await store.peek('k', 5);
      assert.deepEqual(empty, {
        allowed: true,
        limit: 5,
        remaining: 5,
        resetAt: Date.parse(START) / 1000,
        resetSeconds: 0,
      });
      await hits(store, 'k', 5, 4);
      clock.advance(10 * SECOND);
      const before = await store.peek('k', 5);
      assert.deepEqual([before.allowed, before.remaining, before.resetSeconds], [true, 1, 50]);
      assert.deepEqual(await store.peek('k', 5), before);
      const hit = await store.hit('k', 5);
      assert.deepEqual([hit.allowed, hit.remaining, hit.resetAt], [true, 0, before.resetAt]);
      const full = await store.peek('k', 5);
      assert.deepEqual([full.allowed, full.remaining, full.resetSeconds], [false, 0, 50]);
      assert.equal((await store.hit('k', 5)).allowed, false);
    });

    it('applies a changed limit at once (a lowered override)', async () => {
      const { store } = await fresh();
      await hits(store, 'k', 10, 5);
      const lowered = await store.hit('k', 3);
      assert.deepEqual([lowered.allowed, lowered.limit, lowered.remaining], [false, 3, 0]);
      assert.deepEqual((await store.hit('k', 10)).remaining, 4);
    });

    it('holds a high limit exactly (1,200 a minute, the enterprise default)', async () => {
      const { store, clock } = await fresh();
      for (let i = 0; i < 1200; i++) {
        assert.equal((await store.hit('k', 1200)).allowed, true);
        clock.advance(40); // 1,200 requests over 48 s
      }
      const refused = await store.hit('k', 1200);
      assert.deepEqual([refused.allowed, refused.resetSeconds], [false, 12]);
      clock.set(new Date(Date.parse(START) + 60 * SECOND));
      assert.deepEqual(await hits(store, 'k', 1200, 2).then((d) => d.map((x) => x.allowed)), [true, false]);
    });

    it('never lets more than the limit through under concurrency, also from two handles on one store', async () => {
      const { store, clock, shared } = await fresh();
      const other = await s.make(clock, shared);
      opened.push(other);
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? store : other).hit('ws:busy', 30)),
      );
      assert.equal(answers.filter((d) => d.allowed).length, 30);
      assert.deepEqual(new Set(answers.filter((d) => d.allowed).map((d) => d.remaining)).size, 30);
      assert.equal((await other.peek('ws:busy', 30)).remaining, 0);
    });
  });
}

describe('in-process store memory', () => {
  it('drops keys idle for a whole window, once a minute', async () => {
    const clock = new ManualClock(START);
    const store = new MemoryRateLimiter(clock);
    for (let i = 0; i < 1000; i++) await store.hit(`ip:10.0.${i >> 8}.${i & 255}:getSample`, 30);
    await store.hit('ws:steady', 60);
    assert.equal(store.keyCount, 1001);
    clock.advance(59 * SECOND);
    await store.hit('ws:steady', 60);
    assert.equal(store.keyCount, 1001); // not yet a minute since the last sweep
    clock.advance(2 * SECOND);
    await store.hit('ws:steady', 60);
    assert.equal(store.keyCount, 1); // only the key used within the window is left
    assert.equal((await store.peek('ws:steady', 60)).remaining, 58);
  });
});

describe('Redis store keys', { skip: needsRedis }, () => {
  it('lives under the prefix and expires once idle for a window', async () => {
    const prefix = testPrefix();
    const clock = new ManualClock(START);
    const store = await redisStore(prefix, clock);
    const redis = new Redis(REDIS_URL!);
    try {
      await store.hit('ws:x', 5);
      assert.deepEqual(await redis.keys(`${prefix}*`), [`${prefix}ws:x`]);
      const ttl = await redis.pttl(`${prefix}ws:x`);
      assert.ok(ttl > 0 && ttl <= 60_000, `ttl ${ttl}`);
      await store.peek('ws:y', 5);
      assert.equal(await redis.exists(`${prefix}ws:y`), 0, 'a peek writes nothing');
    } finally {
      await store.close();
      await dropKeys(REDIS_URL!, prefix);
      redis.disconnect();
    }
  });
});
