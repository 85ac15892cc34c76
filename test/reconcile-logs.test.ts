// A reconciliation credential travels in the URL's path (OpenRefine sends no header), so no log may hold it
// (docs/reconciliation.md, "The credential"): calls answered, refused and failed, then every line the server logged
// at its most verbose and every row of every table are searched for the token's text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { loadFixture } from './support/fixture.js';
import { testApp, type TestApp } from './support/app.js';
import { newCredential } from './support/reconciliation.js';

let t: TestApp;
const lines: string[] = [];
let token: string;

before(async () => {
  t = await testApp({ env: { LOG_LEVEL: 'trace' }, logStream: { write: (line) => void lines.push(line) } });
  await loadFixture(t.db.pool);
  const w = await t.workspace('pro');
  await setPerMinute(t.db.pool, w.workspace.id, 100_000);
  token = await newCredential(t.app.http, w.key.key);
});
after(() => t.close());

describe('the credential in the logs', () => {
  it('appears in no log line and no row, whatever the call became', async () => {
    const search = t.app.services.search as { entity: (id: string) => Promise<unknown> };
    const entity = search.entity;
    const calls: Array<[string, number]> = [
      [`/v1/reconcile/${token}`, 200],
      [`/v1/reconcile/${token}/suggest/entity?prefix=acme`, 200],
      [`/v1/reconcile/${token}/preview?id=L20000000001`, 200],
      [`/v1/reconcile/${token}/preview?id=X99999999`, 404],
      [`/v1/reconcile/${token}/suggest/entity`, 400],
      [`/v1/reconcile/${token}/no/such/route`, 404],
      [`/v1/reconcile/${token.slice(0, -1)}`, 401],
      [`/v1/reconcile/${token}x/preview?id=L20000000001`, 401],
    ];
    for (const [url, status] of calls) {
      const res = await t.app.http.inject({ method: 'GET', url });
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    }
    // A failure whose error names the address it served: the error log gets it, blanked.
    search.entity = async () => {
      throw new Error(`reading failed for /v1/reconcile/${token}/preview`);
    };
    try {
      const failed = await t.app.http.inject({ method: 'GET', url: `/v1/reconcile/${token}/preview?id=L20000000001` });
      assert.equal(failed.statusCode, 500);
    } finally {
      search.entity = entity;
    }
    // Any line at all, whoever writes it.
    t.app.http.log.info({ url: `/v1/reconcile/${token}`, token }, `a line naming ${token}`);
    await t.app.requestLog.flush();

    const logged = lines.join('');
    assert.match(logged, /reading failed for \/v1\/reconcile\/\[redacted\]\/preview/, 'the failure was logged');
    assert.match(logged, /a line naming svc_rec_\[redacted\]/);
    assert.ok(!logged.includes(token), 'a log line holds the token');
    assert.ok(!logged.includes(token.slice(8)), 'a log line holds the token without its prefix');

    const routes = await t.db.pool.query<{ route: string }>(
      `SELECT DISTINCT route FROM request_logs WHERE route LIKE '/v1/reconcile/%' ORDER BY route`,
    );
    assert.deepEqual(
      routes.rows.map((r) => r.route),
      [
        '/v1/reconcile/*',
        '/v1/reconcile/:token',
        '/v1/reconcile/:token/preview',
        '/v1/reconcile/:token/suggest/entity',
      ],
    );
    const { rows: tables } = await t.db.pool.query<{ name: string }>(
      `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
       WHERE table_schema IN ('public', 'registry') AND table_type = 'BASE TABLE'`,
    );
    for (const { name } of tables) {
      const { rows } = await t.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${name} x WHERE x::text LIKE '%' || $1 || '%'`,
        [token.slice(8)],
      );
      assert.equal(rows[0]!.n, 0, `${name} holds the token`);
    }
  });
});
