// The events equal an independent diff (docs/webhooks.md, "Events"): a generated registry is loaded but for its
// last days; a workspace watches every entity those days touch and some they do not; around each of those files the
// watched entities are read as the database holds them (their rows, officers and filings, and the principal state
// and countries as the entity's detail shows them), and what changed is compared, field by field and value by
// value, with the `entity.updated` events the file wrote. The diff here shares no code with the importer's.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import stringify from 'safe-stable-stringify';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { importRegistry } from '../src/main/importer.js';
import { WATCHED_FIELDS } from '../src/monitoring/outbox.js';
import { addWatch } from '../src/monitoring/store.js';
import { generateDataset } from '../src/sample/index.js';
import { testApp, type TestApp } from './support/app.js';

const ENTITIES = 25_000;
/** The last days' files, imported one by one under watch. */
const WATCHED_DAYS = 3;
/** Entities watched beside the touched ones: none of their events may appear. */
const UNTOUCHED = 50;

type Json = Record<string, unknown>;
interface Change {
  field: string;
  old: unknown;
  new: unknown;
}
interface Held {
  rec: Json;
  officers: unknown;
  filings: Map<string, Json>;
}

let t: TestApp;
let dir: string;
let key: string;
let workspace: string;
let dailyFiles: string[];

before(async () => {
  t = await testApp({ env: { WEBHOOKS_ALLOW_PRIVATE: '1' } });
  dir = await mkdtemp(path.join(tmpdir(), 'rl-diff-'));
  await generateDataset({ entities: ENTITIES, seed: 61, days: 8, endDate: '2026-10-09', outDir: dir, workers: 0 });
  const names = (await readdir(dir)).sort();
  dailyFiles = names.filter((n) => /^\d{8}c?e?\.txt$/.test(n)).map((n) => path.join(dir, n));
  const later = dailyFiles.slice(-2 * WATCHED_DAYS);
  const earlier = names.map((n) => path.join(dir, n)).filter((f) => !later.includes(f));
  await importRegistry(t.db.pool, earlier);
  dailyFiles = later;
  const w = await t.workspace('enterprise');
  key = w.key.key;
  workspace = w.workspace.id;
  // The test's clock stands still: one minute's window would hold every detail read.
  await setPerMinute(t.db.pool, workspace, 1_000_000);
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/** The document numbers a daily file names (the first 12 characters of each line). */
async function documentsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'latin1');
  return text
    .split(/\r?\n/)
    .map((l) => l.slice(0, 12).trim())
    .filter((d) => /^[A-Z0-9]{6,12}$/.test(d));
}

/** The watched entities as the database holds them now. */
async function read(docs: string[]): Promise<Map<string, Held>> {
  const { rows } = await t.db.pool.query<{ document_number: string; rec: Json; officers: unknown }>(
    `SELECT e.document_number, to_jsonb(e) AS rec,
       coalesce((SELECT jsonb_agg(jsonb_build_object('title', o.title, 'name', o.name) ORDER BY o.slot)
                 FROM registry.officers o WHERE o.document_number = e.document_number), '[]') AS officers
     FROM registry.entities e WHERE e.document_number = ANY($1)`,
    [docs],
  );
  const { rows: filings } = await t.db.pool.query<{ document_number: string; f: Json }>(
    `SELECT document_number, jsonb_build_object('sequence', sequence, 'code', code, 'description', description,
       'effective_date', effective_date, 'filed_date', filed_date) AS f
     FROM registry.events WHERE document_number = ANY($1)`,
    [docs],
  );
  const held = new Map<string, Held>();
  for (const r of rows) {
    const res = await t.get(`/v1/entities/${r.document_number}`, key);
    assert.equal(res.statusCode, 200, res.body);
    const detail = res.json().data;
    // Read from the detail, as the contract fills them in (docs/contract.md, "The entity").
    const shown = {
      principal_state: detail.principal_address?.state ?? null,
      principal_country: detail.principal_address?.country ?? null,
      mailing_country: detail.mailing_address?.country ?? null,
    };
    held.set(r.document_number, { rec: { ...r.rec, ...shown }, officers: r.officers, filings: new Map() });
  }
  for (const f of filings) held.get(f.document_number)?.filings.set(String(f.f.sequence), f.f);
  return held;
}

/** What changed of each watched entity between two readings, as `entity.updated` names it. */
function diff(was: Map<string, Held>, is: Map<string, Held>): Map<string, Change[]> {
  const out = new Map<string, Change[]>();
  for (const [doc, b] of was) {
    const a = is.get(doc);
    if (!a) continue;
    const changes: Change[] = [];
    for (const field of WATCHED_FIELDS) {
      const [o, n] = [b.rec[field] ?? null, a.rec[field] ?? null];
      if (stringify(o) !== stringify(n)) changes.push({ field, old: o, new: n });
    }
    if (stringify(b.officers) !== stringify(a.officers))
      changes.push({ field: 'officers', old: b.officers, new: a.officers });
    for (const [seq, f] of a.filings)
      if (!b.filings.has(seq)) changes.push({ field: 'filing_events', old: null, new: f });
    if (changes.length) out.set(doc, changes);
  }
  return out;
}

/** Each change as JSON with its keys in order, the list sorted: the same changes compare equal. */
const sorted = (changes: Change[]): string[] => changes.map((c) => stringify(c)!).sort();

describe('events against an independent diff of the database', { timeout: 300_000 }, () => {
  it('each file’s entity.updated events are exactly what changed of the watched entities', async (c) => {
    const touched = new Set<string>();
    for (const f of dailyFiles) for (const d of await documentsOf(f)) touched.add(d);
    const { rows: others } = await t.db.pool.query<{ d: string }>(
      `SELECT document_number AS d FROM registry.entities WHERE NOT (document_number = ANY($1))
       ORDER BY document_number LIMIT $2`,
      [[...touched], UNTOUCHED],
    );
    const existing = (await read([...touched])).keys();
    const watched = [...existing, ...others.map((o) => o.d)];
    for (const doc of watched) await addWatch(t.db.pool, workspace, 'enterprise', doc);

    let compared = 0;
    let fields = 0;
    for (const file of dailyFiles) {
      const was = await read(watched);
      await importRegistry(t.db.pool, [file]);
      const expected = diff(was, await read(watched));
      const { rows } = await t.db.pool.query<{
        payload: { data: { document_number: string; name: string; changes: Change[] } };
      }>(
        `SELECT payload FROM monitoring_events WHERE workspace_id = $1 AND type = 'entity.updated'
           AND payload->>'file' = $2`,
        [workspace, path.basename(file)],
      );
      const written = new Map(rows.map((r) => [r.payload.data.document_number, r.payload.data]));
      assert.equal(written.size, rows.length, `${path.basename(file)}: one event an entity`);
      assert.deepEqual(
        [...written.keys()].sort(),
        [...expected.keys()].sort(),
        `${path.basename(file)}: the entities with events are those that changed`,
      );
      for (const [doc, changes] of expected) {
        const event = written.get(doc)!;
        assert.deepEqual(sorted(event.changes), sorted(changes), `${path.basename(file)} ${doc}`);
        const name = (await t.db.pool.query('SELECT name FROM registry.entities WHERE document_number = $1', [doc]))
          .rows[0].name;
        assert.equal(event.name, name, 'the event names the entity as it now is');
        compared++;
        fields += changes.length;
      }
    }
    c.diagnostic(`${watched.length} watched; ${compared} events, ${fields} changed fields compared`);
    // The files must change something watched, or the comparison proves nothing.
    assert.ok(compared >= 10 && fields >= 20, `${compared} events, ${fields} changed fields compared`);
  });
});
