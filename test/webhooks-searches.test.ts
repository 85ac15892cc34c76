// Saved searches judged by the importer (docs/webhooks.md, "Events"): each touched entity is matched before
// and after the change by the same predicates, so only a change of the entity itself makes a
// `saved_search.match`; officer names are read from the entity's officers as they were and are; a mistyped
// name reaches a word the file itself brings; equal searches of two workspaces each get their event.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { ManualClock } from '../src/clock.js';
import { addSavedSearch } from '../src/monitoring/store.js';
import { importFiles } from '../src/registry/import/index.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { corporate, fileOf, person, type Corp } from './support/records.js';

let db: TestDatabase;
let dir: string;

before(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'rl-webhook-searches-'));
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

async function importDaily(name: string, records: Corp[]): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(file, fileOf(records.map(corporate)));
  await importFiles(db.pool, [file]);
}

/** `type search-name document` of every event written for `file`, sorted. */
async function eventsOf(file: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ line: string }>(
    `SELECT m.type || ' ' || coalesce(s.name, '-') || ' ' || m.document_number AS line
     FROM monitoring_events m LEFT JOIN saved_searches s ON s.id = m.saved_search_id
     WHERE m.payload->>'file' = $1`,
    [file],
  );
  return rows.map((r) => r.line).sort();
}

const officer = (last: string, first: string) => ({ title: 'MGR', name: person(last, first) });

describe('saved searches', () => {
  it('announce what a change makes match, once per search, and nothing for what matched already', async () => {
    await importDaily('20261001c.txt', [
      { doc: 'L26000000101', name: 'HARBOR LIGHT LLC', officers: [officer('QUILLFEATHER', 'ANNA')] },
      { doc: 'L26000000102', name: 'GULF BREEZE LLC', officers: [officer('MORRISON', 'PAUL')] },
      { doc: 'L26000000103', name: 'LANTERN WORKS LLC', city: 'TAMPA' },
    ]);
    const clock = new ManualClock('2026-10-01T12:00:00Z');
    const a = (await createWorkspace(db.pool, { plan: 'growth' }, 'pepper', clock)).workspace.id;
    const b = (await createWorkspace(db.pool, { plan: 'growth' }, 'pepper', clock)).workspace.id;
    await addSavedSearch(db.pool, a, 'growth', 'quillfeather', { officer_name: 'quillfeather' });
    await addSavedSearch(db.pool, a, 'growth', 'lanterns', { name: 'lantern' });
    // The same search in two workspaces: each is told.
    await addSavedSearch(db.pool, a, 'growth', 'tampa a', { principal_city: 'TAMPA' });
    await addSavedSearch(db.pool, b, 'growth', 'tampa b', { principal_city: 'TAMPA' });

    await importDaily('20261002c.txt', [
      // Keeps its officer: it matched before, so no event.
      { doc: 'L26000000101', name: 'HARBOR LIGHT LLC', city: 'ORLANDO', officers: [officer('QUILLFEATHER', 'ANNA')] },
      // A new officer makes it match.
      { doc: 'L26000000102', name: 'GULF BREEZE LLC', officers: [officer('QUILLFEATHER', 'JOHN')] },
      // Already in Tampa and already a lantern: touched, but matched before.
      { doc: 'L26000000103', name: 'LANTERN WORKS LLC', city: 'TAMPA', agent: 'SOME AGENT' },
      // New: moves into Tampa, and its name is one typo from LANTERN, a word only this file brings.
      { doc: 'L26000000104', name: 'LANTERM SUPPLY LLC', city: 'TAMPA', fileDate: '10012026' },
    ]);
    assert.deepEqual(await eventsOf('20261002c.txt'), [
      'entity.created - L26000000104',
      'entity.created - L26000000104',
      'saved_search.match lanterns L26000000104',
      'saved_search.match quillfeather L26000000102',
      'saved_search.match tampa a L26000000104',
      'saved_search.match tampa b L26000000104',
    ]);

    // Leaving the search and coming back is a new match; an officer leaving is none.
    await importDaily('20261003c.txt', [
      { doc: 'L26000000101', name: 'HARBOR LIGHT LLC', city: 'ORLANDO', officers: [officer('MORRISON', 'PAUL')] },
      { doc: 'L26000000103', name: 'LANTERN WORKS LLC', city: 'MIAMI', agent: 'SOME AGENT' },
    ]);
    assert.deepEqual(await eventsOf('20261003c.txt'), []);
    await importDaily('20261006c.txt', [
      { doc: 'L26000000103', name: 'LANTERN WORKS LLC', city: 'TAMPA', agent: 'SOME AGENT' },
    ]);
    assert.deepEqual(await eventsOf('20261006c.txt'), [
      'saved_search.match tampa a L26000000103',
      'saved_search.match tampa b L26000000103',
    ]);
  });
});
