// Keys on the account pages: renaming, rolling (the previous secret works for the grace chosen, through the gate's
// single and batched paths, then is refused), this month's usage and last use per key, and the refusals of bad input.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

let t: TestApp;
let owner: WebClient;
let ws: string;

before(async () => {
  t = await testApp();
  owner = new WebClient(t, '10.5.0.1');
  await owner.signUp('keys@example.com');
  ws = (await t.db.pool.query<{ id: string }>('SELECT id FROM workspaces')).rows[0]!.id;
});
after(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const keyRow = async (name: string) =>
  (
    await t.db.pool.query<{ id: string; name: string; hint: string; previous_until: Date | null }>(
      'SELECT id, name, hint, previous_until FROM api_keys WHERE workspace_id = $1 AND name = $2',
      [ws, name],
    )
  ).rows[0]!;

async function createKey(name: string, kind = 'live'): Promise<{ id: string; key: string }> {
  await owner.get('/account/keys');
  const res = await owner.post('/account/keys', { name, kind });
  assert.equal(res.statusCode, 201, res.body);
  const key = /id="new-key">(svc_\w+)</.exec(res.body)![1]!;
  return { id: (await keyRow(name)).id, key };
}

const usage = async (key: string) => (await t.get('/v1/account/usage', key)).statusCode;
const search = async (key: string) => (await t.get('/v1/entities/search?name=acme', key)).statusCode;

describe('renaming a key', () => {
  it('refuses a bad name under its field and changes nothing; a good one renames', async () => {
    const { id } = await createKey('before rename');
    for (const [name, message] of [
      ['', /Name the key/],
      ['x'.repeat(61), /at most 60 characters/],
      ['tab\there', /control characters/],
    ] as const) {
      const res = await owner.post(`/account/keys/${id}/rename`, { name });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, message);
      assert.match(res.body, /<details open>/);
    }
    assert.equal((await owner.post(`/account/keys/${id}/rename`, { name: 'x', extra: '1' })).statusCode, 400);
    assert.equal((await keyRow('before rename')).id, id);
    const done = await owner.post(`/account/keys/${id}/rename`, { name: 'after rename' });
    assert.equal(done.headers.location, '/account/keys?done=key_renamed');
    assert.equal((await keyRow('after rename')).id, id);
    assert.match((await owner.get('/account/keys')).body, /after rename/);
  });

  it("cannot reach another workspace's key", async () => {
    const other = await t.workspace('pro');
    const res = await owner.post(`/account/keys/${other.key.id}/rename`, { name: 'mine now' });
    assert.equal(res.headers.location, '/account/keys?done=no_such_key');
    const { rows } = await t.db.pool.query('SELECT name FROM api_keys WHERE id = $1', [other.key.id]);
    assert.equal(rows[0]!.name, null);
    const roll = await owner.post(`/account/keys/${other.key.id}/roll`, { grace: '1h' });
    assert.equal(roll.headers.location, '/account/keys?done=no_such_key');
    assert.equal(await usage(other.key.key), 200);
  });
});

describe('rolling a key', () => {
  it('keeps the old secret working for the grace chosen, then refuses it; the new one is shown once', async () => {
    const { id, key: old } = await createKey('rolled an hour');
    const before = await keyRow('rolled an hour');
    const res = await owner.post(`/account/keys/${id}/roll`, { grace: '1h' });
    assert.equal(res.statusCode, 200, res.body);
    const fresh = /id="new-key">(svc_live_\w+)</.exec(res.body)![1]!;
    assert.notEqual(fresh, old);
    const after = await keyRow('rolled an hour');
    assert.equal(after.id, id);
    assert.notEqual(after.hint, before.hint);
    assert.equal(after.previous_until!.getTime(), t.clock.now().getTime() + 3_600_000);
    assert.match(res.body, new RegExp(`previous ${before.hint.slice(0, 13)}`));
    // Shown once: the page after has no secret.
    assert.doesNotMatch((await owner.get('/account/keys')).body, new RegExp(fresh));
    assert.deepEqual([await usage(old), await usage(fresh)], [200, 200]);
    // Through the batched gate too: concurrent metered calls with the previous secret are all served and charged.
    const statuses = await Promise.all(Array.from({ length: 6 }, () => search(old)));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200]);
    t.clock.advance(3_600_000);
    assert.deepEqual([await usage(old), await search(old), await usage(fresh)], [401, 401, 200]);
    assert.doesNotMatch((await owner.get('/account/keys')).body, /previous svc_live_/);
  });

  it('with no grace refuses the old secret at once; a second roll ends the first grace', async () => {
    const { id, key: old } = await createKey('rolled now');
    const now = await owner.post(`/account/keys/${id}/roll`, { grace: 'none' });
    const second = /id="new-key">(svc_live_\w+)</.exec(now.body)![1]!;
    assert.match(now.body, /refused from now on/);
    assert.deepEqual([await usage(old), await usage(second)], [401, 200]);
    const week = await owner.post(`/account/keys/${id}/roll`, { grace: '7d' });
    const third = /id="new-key">(svc_live_\w+)</.exec(week.body)![1]!;
    assert.deepEqual([await usage(second), await usage(third)], [200, 200]);
    await owner.post(`/account/keys/${id}/roll`, { grace: '24h' });
    // Only the secret just rolled away keeps working: the one before it stops.
    assert.deepEqual([await usage(second), await usage(third)], [401, 200]);
  });

  it('refuses a grace not offered and changes nothing', async () => {
    const { id, key } = await createKey('not rolled');
    const hint = (await keyRow('not rolled')).hint;
    for (const grace of ['2h', '', 'NONE']) {
      const res = await owner.post(`/account/keys/${id}/roll`, { grace });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, /Choose how long the current secret keeps working/);
      assert.doesNotMatch(res.body, /id="new-key"/);
    }
    assert.equal((await keyRow('not rolled')).hint, hint);
    assert.equal(await usage(key), 200);
  });

  it('revoking a rolled key refuses both its secrets', async () => {
    const { id, key: old } = await createKey('rolled then revoked');
    const res = await owner.post(`/account/keys/${id}/roll`, { grace: '24h' });
    const fresh = /id="new-key">(svc_live_\w+)</.exec(res.body)![1]!;
    assert.equal(
      (await owner.post(`/account/keys/${id}/revoke`, { confirm: 'yes' })).headers.location,
      '/account/keys?done=key_revoked',
    );
    assert.deepEqual([await usage(old), await usage(fresh)], [401, 401]);
  });

  it('keeps a test key a test key', async () => {
    const { id } = await createKey('test rolled', 'test');
    const res = await owner.post(`/account/keys/${id}/roll`, { grace: 'none' });
    assert.match(res.body, /id="new-key">svc_test_\w+</);
  });
});

describe('usage per key', () => {
  it("shows each key's requests and credits this month and its last use", async () => {
    const a = await createKey('usage a');
    const b = await createKey('usage b');
    for (let i = 0; i < 3; i++) assert.equal(await search(a.key), 200);
    assert.equal((await t.get('/v1/entities/search?limit=0', a.key)).statusCode, 400);
    assert.equal(await search(b.key), 200);
    await t.app.requestLog.flush();
    const { rows } = await t.db.pool.query(
      `SELECT key_id, sum(requests)::int AS requests, sum(credits)::int AS credits, sum(rest)::int AS rest
       FROM usage_days WHERE workspace_id = $1 AND key_id = ANY($2) GROUP BY key_id ORDER BY requests`,
      [ws, [a.id, b.id]],
    );
    assert.deepEqual(rows, [
      { key_id: b.id, requests: 1, credits: 1, rest: 1 },
      { key_id: a.id, requests: 4, credits: 3, rest: 3 },
    ]);
    const page = (await owner.get('/account/keys')).body;
    const row = (name: string) => new RegExp(`<td>${name}</td>[\\s\\S]*?</tr>`).exec(page)![0];
    const cells = (name: string) => [...row(name).matchAll(/<td class="num">([^<]*)<\/td>/g)].map((m) => m[1]);
    assert.deepEqual(cells('usage a'), ['4', '3']);
    assert.deepEqual(cells('usage b'), ['1', '1']);
    // Last used: the minute of its last request (the clock does not move within this test).
    const minute = t.clock.now().toISOString().slice(0, 16).replace('T', ' ');
    const times = [...row('usage a').matchAll(/<td>(\d{4}-\d\d-\d\d \d\d:\d\d) UTC<\/td>/g)].map((m) => m[1]);
    assert.equal(times[1], minute);
    // The chart still adds the month up per day, whatever the number of keys.
    const chart = await t.db.pool.query(`SELECT sum(rest + mcp)::int AS n FROM usage_days WHERE workspace_id = $1`, [
      ws,
    ]);
    assert.ok(chart.rows[0]!.n >= 4);
  });

  it('keeps a rolled key its usage', async () => {
    const { id, key } = await createKey('usage rolled');
    assert.equal(await search(key), 200);
    const res = await owner.post(`/account/keys/${id}/roll`, { grace: '1h' });
    const fresh = /id="new-key">(svc_live_\w+)</.exec(res.body)![1]!;
    assert.equal(await search(fresh), 200);
    assert.equal(await search(key), 200);
    await t.app.requestLog.flush();
    const { rows } = await t.db.pool.query('SELECT sum(requests)::int AS requests FROM usage_days WHERE key_id = $1', [
      id,
    ]);
    assert.equal(rows[0]!.requests, 3);
  });
});
