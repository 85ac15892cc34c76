// A plan's monitoring limits under concurrency (docs/webhooks.md, "Limits"): 100 creations at once never pass the
// plan's number of saved searches, endpoints or watches.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PLANS } from '../src/accounts/catalog.js';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { addSavedSearch, addWatch, createEndpoint } from '../src/monitoring/store.js';
import { loadFixture } from './support/fixture.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
before(async () => {
  db = await testDatabase();
  await loadFixture(db.pool);
});
after(() => db.close());

const LIMITS = PLANS.pro.monitoring!;
const count = async (table: string, workspace: string): Promise<number> =>
  (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspace]))
    .rows[0]!.n;
const settled = async (calls: Array<Promise<unknown>>): Promise<number> =>
  (await Promise.allSettled(calls)).filter((r) => r.status === 'fulfilled').length;
const proWorkspace = async (): Promise<string> =>
  (await createWorkspace(db.pool, { plan: 'pro' }, 'pepper', systemClock)).workspace.id;

describe("a plan's monitoring limits, 100 creations at once", () => {
  it('saved searches', async () => {
    const ws = await proWorkspace();
    const made = await settled(
      Array.from({ length: 100 }, (_, i) => addSavedSearch(db.pool, ws, 'pro', `search ${i}`, { name: 'acme' })),
    );
    assert.equal(made, LIMITS.savedSearches);
    assert.equal(await count('saved_searches', ws), LIMITS.savedSearches);
  });

  it('webhook endpoints', async () => {
    const ws = await proWorkspace();
    const made = await settled(
      Array.from({ length: 100 }, (_, i) =>
        createEndpoint(db.pool, ws, 'pro', `https://hooks.example.com/${i}`, ['entity.updated'], false, OPERATOR),
      ),
    );
    assert.equal(made, LIMITS.endpoints);
    assert.equal(await count('webhook_endpoints', ws), LIMITS.endpoints);
  });

  it('watches, at the edge of the limit', async () => {
    const ws = await proWorkspace();
    // Five short of the limit; then the fixture's ten entities at once, ten times over.
    await db.pool.query(
      `INSERT INTO watched_entities (workspace_id, document_number)
       SELECT $1, 'X' || lpad(n::text, 11, '0') FROM generate_series(1, $2) n`,
      [ws, LIMITS.watches - 5],
    );
    const { rows } = await db.pool.query<{ document_number: string }>(
      'SELECT document_number FROM registry.entities ORDER BY document_number LIMIT 10',
    );
    await settled(
      Array.from({ length: 100 }, (_, i) => addWatch(db.pool, ws, 'pro', rows[i % rows.length]!.document_number)),
    );
    assert.equal(await count('watched_entities', ws), LIMITS.watches);
  });
});
