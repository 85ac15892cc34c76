// The per-minute limit through real requests: the acceptance of issue 5 (30 a minute on both
// stores, two servers sharing one Redis, a store that is down, slow or restarted), the seven
// headers on every answer of the API, and the keyless routes limited per client address.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { adjustCredits, setStatus } from '../src/accounts/workspaces.js';
import { buildApp } from '../src/main/app.js';
import type { Operation } from '../src/api/operation.js';
import { listRecentFilings } from '../src/api/operations/filings.js';
import { failOpen, type FailureReason, type RateLimiter } from '../src/ratelimit/index.js';
import { PEPPER, testApp, type TestApp } from './support/app.js';
import { dropKeys, freePort, needsRedis, needsRedisServer, OwnRedis, REDIS_URL, testPrefix } from './support/redis.js';

const METERED = '/v1/filings/recent';
const SEVEN = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
];

interface Window {
  limit: number;
  remaining: number;
  /** Seconds to reset. */
  reset: number;
}

/** The seven headers of an answer, checked to agree with each other and with the clock; parsed. */
function window(res: LightMyRequestResponse, nowMs: number): Window {
  for (const h of SEVEN)
    assert.ok(res.headers[h] !== undefined, `${h} missing on ${res.statusCode} ${res.body.slice(0, 120)}`);
  const num = (h: string): number => Number(res.headers[h]);
  const structured = /^"default";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit));
  assert.ok(structured, `RateLimit: ${res.headers.ratelimit}`);
  const w = { limit: num('x-ratelimit-limit'), remaining: num('x-ratelimit-remaining'), reset: num('ratelimit-reset') };
  assert.equal(num('ratelimit-limit'), w.limit);
  assert.equal(num('ratelimit-remaining'), w.remaining);
  assert.equal(Number(structured[1]), w.remaining);
  assert.equal(Number(structured[2]), w.reset);
  const resetAt = num('x-ratelimit-reset');
  assert.ok(Math.abs(resetAt - (nowMs / 1000 + w.reset)) <= 1, `X-RateLimit-Reset ${resetAt} vs now + ${w.reset}`);
  return w;
}

const noRateHeaders = (res: LightMyRequestResponse): void => {
  for (const h of SEVEN) assert.equal(res.headers[h], undefined, `${h} on ${res.statusCode}`);
};

const metric = async (t: TestApp, reason: FailureReason): Promise<number> => {
  const text = (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
  const m = new RegExp(`^ratelimit_store_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  assert.ok(m, text);
  return Number(m[1]);
};

const STORES = [
  { name: 'in-process store', skip: false as const, env: (): Record<string, string> => ({}) },
  {
    name: 'Redis store',
    skip: needsRedis,
    env: (): Record<string, string> => ({ REDIS_URL: REDIS_URL!, RATE_LIMIT_PREFIX: testPrefix() }),
  },
];

for (const store of STORES) {
  describe(`a 30-a-minute plan on the ${store.name}`, { skip: store.skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await testApp({ env: store.env() });
    });
    after(async () => {
      await t.close();
      if (t.config.redisUrl) await dropKeys(t.config.redisUrl, t.config.rateLimitPrefix);
    });

    it('lets 30 pass, refuses the 31st with Retry-After = true wait, passes again once the oldest leaves', async () => {
      const { key } = await t.workspace('free_trial');
      const start = t.clock.now().getTime();
      for (let i = 0; i < 30; i++) {
        const res = await t.get(METERED, key.key);
        assert.equal(res.statusCode, 200, `request ${i + 1}`);
        assert.equal(window(res, t.clock.now().getTime()).remaining, 29 - i);
        t.clock.advance(1000);
      }
      // 30 s in: the oldest (t = 0) leaves at t = 60 s.
      const refused = await t.get(METERED, key.key);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().error.code, 'rate_limited');
      assert.match(refused.json().error.message, /Retry in 30 seconds/);
      assert.equal(refused.headers['retry-after'], '30');
      assert.deepEqual(window(refused, t.clock.now().getTime()), { limit: 30, remaining: 0, reset: 30 });

      t.clock.advance(29_500); // true wait 0.5 s
      const almost = await t.get(METERED, key.key);
      assert.equal(almost.statusCode, 429);
      assert.equal(almost.headers['retry-after'], '1');

      t.clock.set(new Date(start + 60_000));
      const again = await t.get(METERED, key.key);
      assert.equal(again.statusCode, 200);
      assert.deepEqual(window(again, t.clock.now().getTime()), { limit: 30, remaining: 0, reset: 1 });
      const next = await t.get(METERED, key.key);
      assert.equal(next.statusCode, 429);
      assert.equal(next.headers['retry-after'], '1');
    });
  });
}

describe('rate-limit headers', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());
  const now = (): number => t.clock.now().getTime();

  it('on /v1 and /api/v1 answers past the rate stage: a window per workspace, each request counted once', async () => {
    const { key } = await t.workspace('pro');
    const answers: Array<[string, number]> = [
      [METERED, 200],
      [`/api${METERED}`, 200],
      [`${METERED}?format=csv`, 200],
      [`${METERED}?days=91`, 400],
      ['/v1/entities/NOSUCH1', 404],
      ['/v1/leads/new-businesses', 403], // the plan gate comes after the rate stage
    ];
    for (const [i, [url, status]] of answers.entries()) {
      const res = await t.get(url, key.key);
      assert.equal(res.statusCode, status, url);
      assert.deepEqual(window(res, now()), { limit: 150, remaining: 149 - i, reset: 60 }, url);
    }
  });

  it('on 401s: the keyless allowance of the client address, which they do not consume', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.get(METERED, i === 0 ? undefined : `svc_live_${'x'.repeat(32)}`);
      assert.equal(res.statusCode, 401);
      assert.deepEqual(window(res, now()), { limit: 30, remaining: 30, reset: 0 });
    }
  });

  it('on surface refusals (403 rest_disabled): workspace window read, not counted; MCP calls count in it', async () => {
    const { key } = await t.workspace('mcp_starter');
    for (let i = 0; i < 2; i++) {
      const res = await t.get(METERED, key.key);
      assert.equal(res.json().error.code, 'rest_disabled');
      assert.deepEqual(window(res, now()), { limit: 30, remaining: 30, reset: 0 });
    }
    const viaMcp = await t.app.pipeline.invoke(listRecentFilings as unknown as Operation, {
      surface: 'mcp',
      headers: { authorization: `Bearer ${key.key}` },
      args: {},
      csv: false,
      requestId: 'req_ratelimitmcp0000000000',
      clientIp: '127.0.0.1',
    });
    assert.equal(viaMcp.status, 200);
    assert.equal(viaMcp.headers['x-ratelimit-remaining'], '29');
    const after = await t.get(METERED, key.key);
    assert.equal(after.statusCode, 403);
    assert.deepEqual(window(after, now()), { limit: 30, remaining: 29, reset: 60 });
  });

  it('on 402 and on the monthly-quota 429, whose Retry-After is the time to the next cycle', async () => {
    const trial = await t.workspace('free_trial');
    await adjustCredits(t.db.pool, trial.workspace.id, -500, 'test: used up', t.clock);
    const broke = await t.get(METERED, trial.key.key);
    assert.equal(broke.statusCode, 402);
    assert.deepEqual(window(broke, now()), { limit: 30, remaining: 29, reset: 60 });
    assert.equal(broke.headers['retry-after'], undefined);

    const dev = await t.workspace('developer');
    await adjustCredits(t.db.pool, dev.workspace.id, -10_000, 'test: grant used', t.clock);
    await setStatus(t.db.pool, dev.workspace.id, 'past_due');
    const quota = await t.get(METERED, dev.key.key);
    assert.equal(quota.statusCode, 429);
    assert.match(quota.json().error.message, /Monthly credit quota/);
    const toNextCycle = Math.ceil((Date.parse('2026-04-01T00:00:00Z') - now()) / 1000);
    assert.equal(quota.headers['retry-after'], String(toNextCycle));
    assert.deepEqual(window(quota, now()), { limit: 60, remaining: 59, reset: 60 });
  });

  it('on unknown routes and on everything under /mcp; never on health and metrics routes', async () => {
    const { key } = await t.workspace('pro');
    for (const url of ['/v1/nope', '/api/v1/nope', '/v1']) {
      const res = await t.get(url, key.key);
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(window(res, now()), { limit: 30, remaining: 30, reset: 0 }, url);
    }
    for (const method of ['GET', 'POST'] as const) {
      const res = await t.app.http.inject({ method, url: '/mcp', headers: { authorization: `Bearer ${key.key}` } });
      assert.ok(res.statusCode >= 200, `${method} /mcp`);
      window(res, now());
    }
    for (const url of ['/healthz', '/readyz', '/metrics']) noRateHeaders(await t.get(url));
  });
});

describe('keyless routes, per client address', () => {
  let t: TestApp;
  let proxied: TestApp;
  before(async () => {
    t = await testApp();
    proxied = await testApp({ env: { TRUST_PROXY: '127.0.0.1' } });
  });
  after(async () => {
    await t.close();
    await proxied.close();
  });
  const from = (app: TestApp, url: string, remoteAddress: string, headers: Record<string, string> = {}) =>
    app.app.http.inject({ method: 'GET', url, remoteAddress, headers });

  it('public search: 10 a minute per address, /v1 and /api/v1 alike; a 400 counts and carries headers', async () => {
    const ip = '198.51.100.7';
    const bad = await from(t, '/v1/public/search', ip);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(window(bad, t.clock.now().getTime()), { limit: 10, remaining: 9, reset: 60 });
    for (let i = 1; i < 10; i++)
      assert.equal((await from(t, `${i % 2 ? '/api' : ''}/v1/public/search?name=acme`, ip)).statusCode, 200);
    const refused = await from(t, '/v1/public/search?name=acme', ip);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '60');
    assert.match(refused.json().error.message, /Retry in 60 seconds/);
    // Other routes and other addresses have their own windows.
    assert.deepEqual(window(await from(t, '/v1/sample', ip), t.clock.now().getTime()).remaining, 29);
    assert.equal((await from(t, '/v1/public/search?name=acme', '198.51.100.8')).statusCode, 200);
  });

  it('the OpenAPI document: 30 a minute per address', async () => {
    const ip = '198.51.100.9';
    for (let i = 0; i < 30; i++) assert.equal((await from(t, '/v1/openapi.json', ip)).statusCode, 200);
    const refused = await from(t, '/api/v1/openapi.json', ip);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '60');
    assert.deepEqual(window(refused, t.clock.now().getTime()), { limit: 30, remaining: 0, reset: 60 });
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is configured', async () => {
    const ip = '198.51.100.10';
    for (let i = 0; i < 10; i++)
      await from(t, '/v1/public/search?name=acme', ip, { 'x-forwarded-for': `203.0.113.${i}` });
    assert.equal(
      (await from(t, '/v1/public/search?name=acme', ip, { 'x-forwarded-for': '203.0.113.99' })).statusCode,
      429,
    );
  });

  it('behind a trusted proxy, limits each client address from X-Forwarded-For', async () => {
    const proxy = '127.0.0.1';
    const client = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });
    for (let i = 0; i < 10; i++)
      assert.equal((await from(proxied, '/v1/public/search?name=acme', proxy, client(1))).statusCode, 200);
    const refused = await from(proxied, '/v1/public/search?name=acme', proxy, client(1));
    assert.equal(refused.statusCode, 429);
    const other = await from(proxied, '/v1/public/search?name=acme', proxy, client(2));
    assert.equal(other.statusCode, 200);
    await proxied.app.requestLog.flush();
    const { rows } = await proxied.db.pool.query('SELECT client_ip FROM request_logs WHERE request_id = $1', [
      other.headers['x-request-id'],
    ]);
    assert.equal(rows[0]?.client_ip, '203.0.113.2');
  });
});

describe('two servers sharing one Redis', { skip: needsRedis }, () => {
  it('enforce one limit together', async () => {
    const a = await testApp({ env: { REDIS_URL: REDIS_URL!, RATE_LIMIT_PREFIX: testPrefix() } });
    // A second server on the same database and Redis, with its own connection.
    const b = await buildApp({ config: a.config, db: a.database, pepper: PEPPER, clock: a.clock });
    const servers = [a.app.http, b.http];
    const get = (i: number, key: string) =>
      servers[i % 2]!.inject({ method: 'GET', url: METERED, headers: { authorization: `Bearer ${key}` } });
    try {
      const one = await a.workspace('free_trial');
      for (let i = 0; i < 30; i++) {
        const res = await get(i, one.key.key);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['x-ratelimit-remaining'], String(29 - i));
      }
      assert.equal((await get(0, one.key.key)).statusCode, 429);
      assert.equal((await get(1, one.key.key)).statusCode, 429);

      const two = await a.workspace('free_trial');
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => get(i, two.key.key)));
      assert.equal(answers.filter((r) => r.statusCode === 200).length, 30);
      assert.equal(answers.filter((r) => r.statusCode === 429).length, 20);
      assert.deepEqual([await metric(a, 'error'), await metric(a, 'timeout')], [0, 0]);
    } finally {
      await b.http.close();
      await a.close();
      await dropKeys(REDIS_URL!, a.config.rateLimitPrefix);
    }
  });
});

describe('a store that fails', () => {
  const never: RateLimiter = {
    hit: () => new Promise(() => {}),
    peek: () => new Promise(() => {}),
    close: async () => {},
  };

  it(
    'that never answers: requests succeed after the 1-second time-out, and the failures are counted',
    { timeout: 20_000 },
    async (ctx) => {
      const t = await testApp({ limiter: (_clock, limiterCtx) => failOpen(never, limiterCtx) });
      try {
        assert.equal(t.config.rateLimitTimeoutMs, 1000);
        const { key } = await t.workspace('free_trial');
        const started = Date.now();
        const answers = await Promise.all([
          ...Array.from({ length: 35 }, () => t.get(METERED, key.key)),
          ...Array.from({ length: 12 }, () => t.get('/v1/public/search?name=acme')),
        ]);
        ctx.diagnostic(`47 requests answered in ${Date.now() - started} ms`);
        assert.deepEqual(new Set(answers.map((r) => r.statusCode)), new Set([200]));
        assert.deepEqual(window(answers[0]!, t.clock.now().getTime()), { limit: 30, remaining: 29, reset: 60 });
        // Those that reach the store after the first time-out are let through at once, paused.
        assert.equal((await metric(t, 'timeout')) + (await metric(t, 'paused')), 47);
      } finally {
        await t.close();
      }
    },
  );

  it('Redis on a closed port: requests succeed at once, and the failures are counted', async () => {
    const t = await testApp({
      env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, RATE_LIMIT_TIMEOUT_MS: '300' },
    });
    try {
      const { key } = await t.workspace('pro');
      for (let i = 0; i < 5; i++) assert.equal((await t.get(METERED, key.key)).statusCode, 200);
      assert.equal((await t.get('/v1/leads/new-businesses', key.key)).statusCode, 403);
      assert.equal(await metric(t, 'error'), 6);
    } finally {
      await t.close();
    }
  });

  it(
    'Redis paused, killed and restarted: never a 5xx, and counting resumes after the restart',
    { skip: needsRedisServer, timeout: 30_000 },
    async () => {
      const redis = await OwnRedis.start();
      const t = await testApp({ env: { REDIS_URL: redis.url, RATE_LIMIT_TIMEOUT_MS: '300' } });
      const failures = async (): Promise<number> =>
        (await metric(t, 'error')) + (await metric(t, 'timeout')) + (await metric(t, 'paused'));
      try {
        const { key } = await t.workspace('pro');
        const get = () => t.get(METERED, key.key);
        assert.equal((await get()).headers['x-ratelimit-remaining'], '149');
        assert.equal((await get()).headers['x-ratelimit-remaining'], '148');

        redis.signal('SIGSTOP'); // slow: connected, never answering
        assert.equal((await get()).statusCode, 200);
        assert.equal(await metric(t, 'timeout'), 1);
        redis.signal('SIGCONT');

        await redis.kill(); // down
        for (let i = 0; i < 3; i++) assert.equal((await get()).statusCode, 200);
        assert.ok((await failures()) >= 4);

        await redis.restart(); // back, empty: the client reconnects on its own
        const deadline = Date.now() + 10_000;
        let counted = false;
        while (!counted && Date.now() < deadline) {
          const before = await failures();
          assert.equal((await get()).statusCode, 200);
          counted = (await failures()) === before;
          if (!counted) await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(counted, 'the limiter did not use the restarted Redis within 10 s');
        const a = Number((await get()).headers['x-ratelimit-remaining']);
        const b = Number((await get()).headers['x-ratelimit-remaining']);
        assert.equal(b, a - 1);
      } finally {
        await t.close();
        await redis.kill();
      }
    },
  );
});
