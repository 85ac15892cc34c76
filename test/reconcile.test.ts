// The reconciliation service for OpenRefine (docs/reconciliation.md) without its query batches
// (test/reconcile-queries.test.ts): the manifest, suggest, preview, data extension and property proposals answer what
// the spec's own JSON schemas accept; what each costs, charged once and refunded when refused; the credential's REST
// routes; a revoked or unknown credential refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../src/accounts/audit.js';
import { addKey } from '../src/accounts/key-admin.js';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { Contract } from './support/contract.js';
import { loadFixture } from './support/fixture.js';
import { assertSpecValid } from './support/reconciliation.js';
import { PEPPER, testApp, type TestApp } from './support/app.js';

let t: TestApp;
let contract: Contract;
let key: string;
let workspaceId: string;
let token: string;
let credentialId: string;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z', env: { PUBLIC_BASE_URL: 'https://registry.example' } });
  await loadFixture(t.db.pool);
  contract = new Contract((await t.get('/v1/openapi.json')).json());
  const w = await t.workspace('pro');
  key = w.key.key;
  workspaceId = w.workspace.id;
  await setPerMinute(t.db.pool, workspaceId, 100_000); // the per-minute limit is not under test here
  const res = await t.app.http.inject({
    method: 'POST',
    url: '/v1/reconcile-credentials',
    headers: { authorization: `Bearer ${key}` },
    payload: { name: 'suppliers sheet' },
  });
  contract.check('/v1/reconcile-credentials', res, 'post');
  assert.equal(res.statusCode, 200, res.body);
  token = res.json().data.token;
  credentialId = res.json().data.id;
});
after(() => t.close());

const service = (path = '') => `/v1/reconcile/${token}${path}`;
const credits = async (): Promise<number> =>
  (
    await t.db.pool.query<{ n: number }>(
      `SELECT coalesce(-sum(amount), 0)::int AS n FROM credit_ledger
       WHERE workspace_id = $1 AND kind IN ('consumption', 'overage', 'refund')`,
      [workspaceId],
    )
  ).rows[0]!.n;

/** Calls the service and waits for the answer's settlement, so the credits read after it are final. */
async function call(url: string, init: { method?: 'GET' | 'POST'; form?: Record<string, string> } = {}) {
  const res = await t.app.http.inject({
    method: init.method ?? 'GET',
    url,
    ...(init.form
      ? {
          payload: new URLSearchParams(init.form).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }
      : {}),
  });
  await t.app.requestLog.flush();
  return res;
}

describe('the credential', () => {
  it('is shown once with its service URL, listed without its token, and is only its hash in the database', async () => {
    assert.match(token, /^svc_rec_[0-9A-Za-z]{32}$/);
    const list = await t.get('/v1/reconcile-credentials', key);
    contract.check('/v1/reconcile-credentials', list);
    const [listed] = list.json().data;
    assert.equal(listed.id, credentialId);
    assert.equal(listed.name, 'suppliers sheet');
    assert.equal(listed.token, undefined);
    assert.ok(!JSON.stringify(list.json()).includes(token.slice(12, -4)));
    const { rows } = await t.db.pool.query(`SELECT * FROM reconcile_credentials WHERE id = $1`, [credentialId]);
    assert.ok(!JSON.stringify(rows).includes(token));
  });

  it('is refused to a test key, and bad input creates nothing', async () => {
    const before = await t.db.pool.query('SELECT count(*)::int AS n FROM reconcile_credentials');
    for (const payload of [{ name: '' }, { name: 'x'.repeat(101) }, { nom: 'a' }]) {
      const res = await t.app.http.inject({
        method: 'POST',
        url: '/v1/reconcile-credentials',
        headers: { authorization: `Bearer ${key}` },
        payload,
      });
      contract.check('/v1/reconcile-credentials', res, 'post');
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.equal(res.json().error.code, 'bad_request');
    }
    const test = await addKey(t.db.pool, workspaceId, 'test', null, PEPPER, t.clock, OPERATOR);
    const refused = await t.app.http.inject({
      method: 'POST',
      url: '/v1/reconcile-credentials',
      headers: { authorization: `Bearer ${test.key}` },
      payload: {},
    });
    contract.check('/v1/reconcile-credentials', refused, 'post');
    assert.equal(refused.statusCode, 403);
    const after = await t.db.pool.query('SELECT count(*)::int AS n FROM reconcile_credentials');
    assert.deepEqual(after.rows, before.rows);
  });
});

describe('the manifest', () => {
  it('is a valid v0.2 manifest naming every service under the credential, free', async () => {
    const spent = await credits();
    const res = await call(service());
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const m = res.json();
    assertSpecValid('manifest', m);
    assert.deepEqual(m.versions, ['0.2']);
    assert.equal(m.view.url, 'https://registry.example/v1/entities/{{id}}');
    assert.equal(m.preview.url, `https://registry.example${service('/preview')}?id={{id}}`);
    assert.equal(m.suggest.entity.service_url, `https://registry.example${service()}`);
    assert.ok(m.defaultTypes.some((ty: { id: string; name: string }) => ty.id === 'FLAL'));
    assert.equal(await credits(), spent);
    assert.throws(() => assertSpecValid('manifest', { ...m, versions: undefined }), /versions/);
  });

  it('refuses an unknown parameter, free', async () => {
    const res = await call(service('?callback=x'));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.details.callback, 'unknown parameter');
  });
});

describe('suggest', () => {
  it('finds entities by name or document number, a credit a call', async () => {
    const spent = await credits();
    const res = await call(service('/suggest/entity?prefix=acme%20hold'));
    assert.equal(res.statusCode, 200, res.body);
    assertSpecValid('suggest-entities-response', res.json());
    assert.ok(res.json().result.some((r: { id: string }) => r.id === 'L20000000001'));
    const byNumber = await call(service('/suggest/entity?prefix=p21000000002'));
    assertSpecValid('suggest-entities-response', byNumber.json());
    assert.equal(byNumber.json().result[0].id, 'P21000000002');
    assert.deepEqual(byNumber.json().result[0].notable, [{ id: 'DOMP', name: 'Domestic For-Profit Corporation' }]);
    assert.equal(await credits(), spent + 2);
  });

  it('finds properties and types from their lists, free', async () => {
    const spent = await credits();
    const props = await call(service('/suggest/property?prefix=zip'));
    assertSpecValid('suggest-properties-response', props.json());
    assert.deepEqual(
      props.json().result.map((r: { id: string }) => r.id),
      ['zip'],
    );
    const types = await call(service('/suggest/type?prefix=limited%20liability'));
    assertSpecValid('suggest-types-response', types.json());
    assert.deepEqual(
      types.json().result.map((r: { id: string }) => r.id),
      ['FLAL', 'FORL'],
    );
    assert.equal(await credits(), spent);
  });

  it('refuses a missing prefix, free', async () => {
    const spent = await credits();
    const res = await call(service('/suggest/entity'));
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().error.details.prefix);
    assert.equal(await credits(), spent);
  });
});

describe('preview', () => {
  it('is an escaped HTML card with a strict policy and no referrer, a credit', async () => {
    const spent = await credits();
    const res = await call(service('/preview?id=P21000000002'));
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'; style-src 'sha256-/);
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.match(res.body, /<h1>ACME HOLDINGS, INC\.<\/h1>/);
    assert.match(res.body, /Domestic For-Profit Corporation \(DOMP\)/);
    assert.match(res.body, /200 BAY ST, TAMPA, FL 33602/);
    assert.ok(!/<script|https?:\/\//.test(res.body), 'no script, no external asset');
    const obrien = await call(service('/preview?id=L23000000007'));
    assert.match(obrien.body, /O&#39;BRIEN &amp; SONS, L\.L\.C\./);
    assert.equal(await credits(), spent + 2);
  });

  it('answers 404 for an unknown entity (its credit kept), 400 for a malformed id (free)', async () => {
    const spent = await credits();
    assert.equal((await call(service('/preview?id=X99999999'))).statusCode, 404);
    assert.equal(await credits(), spent + 1);
    assert.equal((await call(service('/preview?id=%3Cb%3E'))).statusCode, 400);
    assert.equal(await credits(), spent + 1);
  });
});

describe('data extension', () => {
  it('proposes its properties for a type, free', async () => {
    const spent = await credits();
    const res = await call(service('/properties?type=FLAL&limit=3'));
    assertSpecValid('data-extension-property-proposal', res.json());
    assert.equal(res.json().properties.length, 3);
    assert.equal((await call(service('/properties?type=NOPE'))).statusCode, 400);
    assert.equal(await credits(), spent);
  });

  it('answers the properties of each entity, a credit per entity, by GET or form POST', async () => {
    const spent = await credits();
    const query = {
      ids: ['P21000000002', 'L20000000001', 'X99999999'],
      properties: [{ id: 'status' }, { id: 'filing_date' }, { id: 'officers' }, { id: 'principal_address' }],
    };
    assertSpecValid('data-extension-query', query);
    const res = await call(service(), { method: 'POST', form: { extend: JSON.stringify(query) } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assertSpecValid('data-extension-response', body);
    assert.deepEqual(body.rows.P21000000002.officers, [{ str: 'P: GARCIA, MARIA L' }, { str: "D: O'BRIEN, SEAN" }]);
    assert.deepEqual(body.rows.P21000000002.filing_date, [{ date: '2021-06-01T00:00:00Z' }]);
    assert.deepEqual(body.rows.X99999999.status, []);
    assert.equal(await credits(), spent + 3);
    const get = await call(
      service(`?extend=${encodeURIComponent(JSON.stringify({ ...query, ids: ['L20000000001'] }))}`),
    );
    assertSpecValid('data-extension-response', get.json());
    assert.equal(await credits(), spent + 4);
  });

  it('refuses an unknown property or too many entities, naming them, free', async () => {
    const spent = await credits();
    const bad = await call(service(), {
      method: 'POST',
      form: { extend: JSON.stringify({ ids: ['L20000000001'], properties: [{ id: 'fei' }] }) },
    });
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.json().error.details['extend.properties.0.id']);
    const many = Array.from({ length: 51 }, (_, i) => `L2000000${String(i).padStart(4, '0')}`);
    const tooMany = await call(service(), {
      method: 'POST',
      form: { extend: JSON.stringify({ ids: many, properties: [{ id: 'status' }] }) },
    });
    assert.equal(tooMany.statusCode, 400);
    assert.equal((await call(service(), { method: 'POST', form: { extend: '{' } })).statusCode, 400);
    assert.equal(await credits(), spent);
  });
});

describe('refusals', () => {
  it('refuses an unknown token 401, without repeating the path, free', async () => {
    const res = await call('/v1/reconcile/svc_rec_00000000000000000000000000000000');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, 'unauthorized');
    const other = await call(`/v1/reconcile/${token}/nothing-here`);
    assert.equal(other.statusCode, 404);
    assert.ok(!other.body.includes(token));
  });

  it('refunds the credits of a call the quota refuses', async () => {
    const spent = await credits();
    await t.db.pool.query(`UPDATE workspaces SET monthly_remaining = 1 WHERE id = $1`, [workspaceId]);
    await t.db.pool.query(`UPDATE workspaces SET plan = 'enterprise' WHERE id = $1`, [workspaceId]);
    const query = { ids: ['P21000000002', 'L20000000001'], properties: [{ id: 'status' }] };
    const res = await call(service(), { method: 'POST', form: { extend: JSON.stringify(query) } });
    assert.equal(res.statusCode, 429, res.body);
    assert.equal(await credits(), spent);
    const { rows } = await t.db.pool.query<{ monthly_remaining: number }>(
      'SELECT monthly_remaining::int FROM workspaces WHERE id = $1',
      [workspaceId],
    );
    assert.equal(rows[0]!.monthly_remaining, 1);
    await t.db.pool.query(`UPDATE workspaces SET plan = 'pro', monthly_remaining = 50000 WHERE id = $1`, [workspaceId]);
  });

  it('refuses a revoked credential from its very next call', async () => {
    const revoked = await t.app.http.inject({
      method: 'DELETE',
      url: `/v1/reconcile-credentials/${credentialId}`,
      headers: { authorization: `Bearer ${key}` },
    });
    contract.check(`/v1/reconcile-credentials/${credentialId}`, revoked, 'delete');
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.ok(revoked.json().data.revoked_at);
    const spent = await credits();
    for (const path of ['', '/suggest/entity?prefix=acme', '/preview?id=P21000000002']) {
      const res = await call(service(path));
      assert.equal(res.statusCode, 401, path);
      assert.equal(res.json().error.code, 'unauthorized');
    }
    assert.equal(await credits(), spent);
    const again = await t.app.http.inject({
      method: 'DELETE',
      url: `/v1/reconcile-credentials/${credentialId}`,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(again.statusCode, 404);
  });
});
