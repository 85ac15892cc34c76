// Saved searches judged by the importer (docs/webhooks.md, "Events"): each touched entity whose searched
// fields or officers' names change is matched before and after the change by the same predicates, so only a
// change of the entity itself makes a `saved_search.match`; one whose change no search reads is not judged;
// officer names are read from the entity's officers as they were and are; a mistyped name reaches a word the
// file itself brings; equal searches of two workspaces each get their event.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { ManualClock } from '../src/clock.js';
import { SEARCHED_FIELDS } from '../src/monitoring/matches.js';
import { addSavedSearch } from '../src/monitoring/store.js';
import { matchConditions } from '../src/search/entities/filters.js';
import { analyzeName } from '../src/search/entities/name.js';
import type { EntitySearch } from '../src/search/entities/query.js';
import { Sql } from '../src/search/sql.js';
import { importRegistry } from '../src/main/importer.js';
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

/** Imports a daily file; returns how many of its entities the saved searches judged. */
async function importDaily(name: string, records: Corp[]): Promise<number> {
  const file = path.join(dir, name);
  await writeFile(file, fileOf(records.map(corporate)));
  return (await importRegistry(db.pool, [file])).files[0]!.entities_judged;
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
      { doc: 'L26000000105', name: 'CORAL STONE LLC', officers: [officer('MORRISON', 'ANNA')] },
    ]);
    const clock = new ManualClock('2026-10-01T12:00:00Z');
    const a = (await createWorkspace(db.pool, { plan: 'growth' }, 'pepper', clock)).workspace.id;
    const b = (await createWorkspace(db.pool, { plan: 'growth' }, 'pepper', clock)).workspace.id;
    await addSavedSearch(db.pool, a, 'growth', 'quillfeather', { officer_name: 'quillfeather' });
    await addSavedSearch(db.pool, a, 'growth', 'lanterns', { name: 'lantern' });
    // The same search in two workspaces: each is told.
    await addSavedSearch(db.pool, a, 'growth', 'tampa a', { principal_city: 'TAMPA' });
    await addSavedSearch(db.pool, b, 'growth', 'tampa b', { principal_city: 'TAMPA' });
    await addSavedSearch(db.pool, b, 'growth', 'harbor agents', { ra_name: 'harbor agents' });

    const judged = await importDaily('20261002c.txt', [
      // Keeps its officer: it matched before, so no event.
      { doc: 'L26000000101', name: 'HARBOR LIGHT LLC', city: 'ORLANDO', officers: [officer('QUILLFEATHER', 'ANNA')] },
      // A new officer makes it match.
      { doc: 'L26000000102', name: 'GULF BREEZE LLC', officers: [officer('QUILLFEATHER', 'JOHN')] },
      // Already in Tampa and already a lantern: touched, but matched before.
      { doc: 'L26000000103', name: 'LANTERN WORKS LLC', city: 'TAMPA', agent: 'SOME AGENT' },
      // New: moves into Tampa, and its name is one typo from LANTERN, a word only this file brings.
      { doc: 'L26000000104', name: 'LANTERM SUPPLY LLC', city: 'TAMPA', fileDate: '10012026' },
      // Its street, ZIP and an officer's title change: no search reads them, so it is not judged.
      {
        doc: 'L26000000105',
        name: 'CORAL STONE LLC',
        street: '9 BAY RD',
        zip: '33133',
        officers: [{ title: 'AMBR', name: person('MORRISON', 'ANNA') }],
      },
    ]);
    assert.equal(judged, 4);
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
    // A new name and a new agent each make a match.
    await importDaily('20261006c.txt', [
      { doc: 'L26000000103', name: 'LANTERN WORKS LLC', city: 'TAMPA', agent: 'SOME AGENT' },
      { doc: 'L26000000102', name: 'GULF LANTERN LLC', officers: [officer('QUILLFEATHER', 'JOHN')] },
      {
        doc: 'L26000000105',
        name: 'CORAL STONE LLC',
        street: '9 BAY RD',
        zip: '33133',
        agent: 'HARBOR AGENTS INC',
        officers: [{ title: 'AMBR', name: person('MORRISON', 'ANNA') }],
      },
    ]);
    assert.deepEqual(await eventsOf('20261006c.txt'), [
      'saved_search.match harbor agents L26000000105',
      'saved_search.match lanterns L26000000102',
      'saved_search.match tampa a L26000000103',
      'saved_search.match tampa b L26000000103',
    ]);
  });

  it('are judged on every entity column their predicate reads (a change elsewhere cannot move a match)', async () => {
    const every: EntitySearch = {
      status: ['active', 'd'],
      entity_type: ['FLAL'],
      state: 'FL',
      principal_state: 'FL',
      filed_after: '2020-01-01',
      filed_before: '2026-01-01',
      doc_number_prefix: 'L26',
      officer_name: 'quillfeather',
      ra_name: 'harbor agents',
      limit: 1,
      offset: 0,
    };
    const read = new Set<string>();
    for (const q of [
      { ...every, name: 'lantern works' },
      { ...every, name: 'lantern works', principal_city: 'TAMPA' },
      { ...every, name: 'la' },
    ]) {
      const where = await matchConditions(db.pool, new Sql(), q, await analyzeName(db.pool, q.name), null);
      for (const [, column] of where.join(' ').matchAll(/\be\.(\w+)/g)) read.add(column!);
    }
    // The key and the id never change; every other column read is one the importer compares.
    const compared = new Set<string>([...SEARCHED_FIELDS, 'document_number', 'id']);
    assert.deepEqual(
      [...read].filter((c) => !compared.has(c)),
      [],
    );
    assert.ok(read.has('name_words') && read.has('name_core') && read.has('agent_words'), [...read].join(' '));
  });
});
