// The change feed equals an independent diff (docs/contract.md, "Change feed"): a generated registry is loaded but
// for its last days; around each of those files every entity it names is read as the database holds it (the
// record's fields, its officers, its filings), what changed is worked out here, and compared change by change with
// what GET /v1/changes answers after the file. The diff shares no code with the importer's; only the list of
// fields a change reports comes from it.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import stringify from 'safe-stable-stringify';
import { setPerMinute } from '../src/accounts/workspaces.js';
import { importRegistry } from '../src/main/importer.js';
import { ENTITY_FIELDS } from '../src/registry/feed/fields.js';
import type { ChangeRow } from '../src/registry/feed/read.js';
import { generateDataset } from '../src/sample/index.js';
import { testApp, type TestApp } from './support/app.js';
import { Contract } from './support/contract.js';

const ENTITIES = 25_000;
/** The last days' files, imported one by one and compared. */
const DIFFED_DAYS = 3;

type Json = Record<string, unknown>;
interface Expected {
  kind: string;
  document_number: string;
  changes: Array<{ field: string; before: unknown; after: unknown }>;
}
interface Held {
  rec: Json;
  county: string | null;
}

let t: TestApp;
let dir: string;
let key: string;
let contract: Contract;
let files: string[];

before(async () => {
  t = await testApp();
  dir = await mkdtemp(path.join(tmpdir(), 'rl-changes-diff-'));
  await generateDataset({ entities: ENTITIES, seed: 67, days: 8, endDate: '2026-10-09', outDir: dir, workers: 0 });
  const names = (await readdir(dir)).sort();
  const daily = names.filter((n) => /^\d{8}c?e?\.txt$/.test(n)).map((n) => path.join(dir, n));
  files = daily.slice(-2 * DIFFED_DAYS);
  await importRegistry(
    t.db.pool,
    names.map((n) => path.join(dir, n)).filter((f) => !files.includes(f)),
  );
  const w = await t.workspace('enterprise');
  key = w.key.key;
  await setPerMinute(t.db.pool, w.workspace.id, 1_000_000);
  contract = new Contract((await t.get('/v1/openapi.json')).json());
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

/** The document numbers a daily file names (the first 12 characters of each line). */
async function documentsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'latin1');
  const docs = text.split(/\r?\n/).map((l) => l.slice(0, 12).trim());
  return [...new Set(docs.filter((d) => /^[A-Z0-9]{6,12}$/.test(d)))];
}

/** The entities of `docs` as the database holds them: their fields and officers, and their principal ZIP's county. */
async function entities(docs: string[]): Promise<Map<string, Held>> {
  const { rows } = await t.db.pool.query<{ document_number: string; rec: Json; county: string | null }>(
    `SELECT e.document_number, to_jsonb(e) AS rec, z.county
     FROM registry.entities e LEFT JOIN zip_counties z ON z.zip5 = e.principal_zip5
     WHERE e.document_number = ANY($1)`,
    [docs],
  );
  const { rows: officers } = await t.db.pool.query<{
    document_number: string;
    slot: number;
    title: string;
    name: string;
  }>('SELECT document_number, slot, title, name FROM registry.officers WHERE document_number = ANY($1) ORDER BY slot', [
    docs,
  ]);
  const held = new Map(
    rows.map((r) => [r.document_number, { rec: { ...r.rec, officers: [] as Json[] }, county: r.county }]),
  );
  for (const o of officers)
    (held.get(o.document_number)?.rec.officers as Json[] | undefined)?.push({
      slot: o.slot,
      title: o.title,
      name: o.name,
    });
  return held;
}

/** The filings of `docs`, by document number and sequence. */
async function filings(docs: string[]): Promise<Map<string, Json>> {
  const { rows } = await t.db.pool.query<Json & { document_number: string }>(
    `SELECT document_number, sequence, code, filing_type, description, effective_date::text, filed_date::text
     FROM registry.events WHERE document_number = ANY($1)`,
    [docs],
  );
  return new Map(rows.map(({ document_number, ...f }) => [`${document_number} ${f.sequence}`, f]));
}

const FIELDS = [...ENTITY_FIELDS, 'officers'];
const blank = (v: unknown): boolean => v === null || v === undefined || (Array.isArray(v) && v.length === 0);
const same = (a: unknown, b: unknown): boolean => stringify(a ?? null) === stringify(b ?? null);

/** What changed of each entity between two readings, as the feed names it. */
function entityDiff(was: Map<string, Held>, is: Map<string, Held>): Expected[] {
  const out: Expected[] = [];
  for (const [doc, a] of is) {
    const b = was.get(doc);
    if (!b) {
      const changes = FIELDS.filter((f) => !blank(a.rec[f])).map((f) => ({ field: f, before: null, after: a.rec[f] }));
      out.push({ kind: 'created', document_number: doc, changes });
      continue;
    }
    if (!same(b.rec.status, a.rec.status))
      out.push({
        kind: 'status_changed',
        document_number: doc,
        changes: [{ field: 'status', before: b.rec.status, after: a.rec.status }],
      });
    const changed = FIELDS.filter((f) => f !== 'status' && !same(b.rec[f], a.rec[f]));
    if (changed.length)
      out.push({
        kind: 'updated',
        document_number: doc,
        changes: changed.map((f) => ({ field: f, before: b.rec[f] ?? null, after: a.rec[f] ?? null })),
      });
  }
  return out;
}

/** The filings added or changed between two readings. */
function filingDiff(was: Map<string, Json>, is: Map<string, Json>): Expected[] {
  return [...is]
    .filter(([k, f]) => !was.has(k) || !same(was.get(k), f))
    .map(([k, f]) => ({
      kind: 'filing',
      document_number: k.split(' ')[0]!,
      changes: [{ field: 'filing', before: was.get(k) ?? null, after: f }],
    }));
}

/** Every change after `position`, walked page by page through next_cursor. */
async function feedAfter(position: number): Promise<ChangeRow[]> {
  const rows: ChangeRow[] = [];
  let url = `/v1/changes?after_sequence=${position}&limit=37`;
  for (;;) {
    const res = await t.get(url, key);
    contract.check(url, res);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { data: ChangeRow[]; pagination: { has_more: boolean; next_cursor: string } };
    rows.push(...body.data);
    if (!body.pagination.has_more) return rows;
    url = `/v1/changes?after_sequence=${position}&limit=37&cursor=${body.pagination.next_cursor}`;
  }
}

const signature = (e: Expected): string => stringify([e.document_number, e.kind, e.changes])!;
const newest = async (): Promise<number> =>
  Number((await t.db.pool.query('SELECT last_sequence FROM registry.change_state')).rows[0].last_sequence);

describe('the change feed against an independent diff of the database', { timeout: 300_000 }, () => {
  it("each file's changes are exactly what changed of the entities it names", async (c) => {
    const kinds: Record<string, number> = {};
    for (const file of files) {
      const name = path.basename(file);
      const docs = await documentsOf(file);
      const events = name.endsWith('e.txt');
      const was = events ? null : await entities(docs);
      const wasFiled = events ? await filings(docs) : null;
      const from = await newest();
      await importRegistry(t.db.pool, [file]);
      const expected = events ? filingDiff(wasFiled!, await filings(docs)) : entityDiff(was!, await entities(docs));
      const written = await feedAfter(from);
      assert.deepEqual(written.map(signature).sort(), expected.map(signature).sort(), name);
      // Numbered on from the last number, without a gap, in document order; each names its file and entity.
      assert.deepEqual(
        written.map((r) => r.sequence),
        written.map((_, i) => from + i + 1),
        `${name}: numbered in order`,
      );
      const now = events ? null : await entities(docs);
      for (const r of written) {
        assert.equal(r.file, name);
        assert.equal(r.file_date, `${name.slice(0, 4)}-${name.slice(4, 6)}-${name.slice(6, 8)}`);
        if (now) {
          assert.equal(r.entity_type, now.get(r.document_number)!.rec.entity_type, `${name} ${r.document_number}`);
          assert.equal(r.county, now.get(r.document_number)!.county, `${name} ${r.document_number}`);
        }
        kinds[r.kind] = (kinds[r.kind] ?? 0) + 1;
      }
      const order = written.map((r) => r.document_number);
      assert.deepEqual(order, [...order].sort(), `${name}: by document number`);
    }
    c.diagnostic(`changes compared by kind: ${JSON.stringify(kinds)}`);
    // The files must bring every kind a daily file can, or the comparison proves little.
    for (const kind of ['created', 'updated', 'status_changed', 'filing'])
      assert.ok((kinds[kind] ?? 0) >= 3, `${kinds[kind] ?? 0} ${kind} changes compared`);
  });
});
