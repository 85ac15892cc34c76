// The prewarm after a full load (relations read in order while they fit the budget, the rest named),
// and the advice to put the server's shared memory on huge pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prewarm } from '../src/db/prewarm.js';
import { hugePagesAdvice, hugePagesLine } from '../src/db/tuning.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
before(async () => {
  db = await testDatabase();
});
after(() => db.close());

const size = async (rel: string): Promise<number> =>
  Number((await db.pool.query<{ n: string }>(`SELECT pg_relation_size($1::regclass) AS n`, [`registry.${rel}`])).rows[0]!.n);

describe('prewarm', () => {
  it('reads the relations that fit the budget, in order, skips the rest and ignores missing names', async () => {
    const [pkey, words] = [await size('entities_pkey'), await size('entity_words_pkey')];
    assert.ok(pkey > 0 && words > 0);
    const all = await prewarm(db.pool, 'registry', ['entities_pkey', 'no_such_relation', 'entity_words_pkey'], pkey + words);
    assert.deepEqual(all, { relations: 2, bytes: pkey + words, skipped: [] });
    const one = await prewarm(db.pool, 'registry', ['entities_pkey', 'entity_words_pkey'], pkey + words - 1);
    assert.deepEqual(one, { relations: 1, bytes: pkey, skipped: ['entity_words_pkey'] });
  });

  it('sizes its budget from the server when given none', async () => {
    const r = await prewarm(db.pool, 'registry', ['entities_pkey']);
    assert.deepEqual(r, { relations: 1, bytes: await size('entities_pkey'), skipped: [] });
  });
});

describe('huge pages advice', () => {
  it('names the pages to reserve only when the server says its shared memory is on 4 KB pages', async () => {
    assert.match(hugePagesLine('off', '3111')!, /sysctl -w vm\.nr_hugepages=3111\b/);
    assert.equal(hugePagesLine('on', '3111'), null);
    assert.equal(hugePagesLine(null, '3111'), null); // PostgreSQL 15 and 16 do not say
    const advice = await hugePagesAdvice(db.pool);
    assert.ok(advice === null || advice.includes('vm.nr_hugepages='));
  });
});
