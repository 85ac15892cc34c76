// The change feed of quarterly snapshots (docs/contract.md, "Change feed"): a full load writes what it changes
// against the live dataset (created, updated, status_changed, removed; filings added, corrected, dropped), in the
// swap's transaction; nothing on a first load, nothing when the same content comes again, nothing when the swap is
// rolled back.
import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import yazl from 'yazl';
import { importFiles } from '../src/registry/import/index.js';
import { silentProgress } from '../src/registry/import/progress.js';
import { loadSnapshot } from '../src/registry/import/snapshot.js';
import { discover } from '../src/registry/import/sources.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { corporate, event, fileOf, person, type Corp, type Ev } from './support/records.js';

let db: TestDatabase;
let dir: string;

before(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'rl-changes-snapshot-'));
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** A quarterly zip of one member dated `date` (YYYY-MM-DD), in its own directory. */
async function snapshotZip(name: string, member: string, content: Buffer, date: string): Promise<string> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(content, member, { mtime: new Date(`${date}T12:00:00Z`) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const file = path.join(await mkdtemp(path.join(dir, `${date}-`)), name);
  await writeFile(file, Buffer.concat(chunks));
  await utimes(file, new Date(), new Date());
  return file;
}

const snapshot = (date: string, corps: Corp[], events: Ev[]): Promise<string[]> =>
  Promise.all([
    snapshotZip('cordata.zip', 'cordata0.txt', fileOf(corps.map(corporate), true), date),
    snapshotZip('corevent.zip', 'corevent0.txt', fileOf(events.map(event), true), date),
  ]);

const plain: Corp[] = Array.from({ length: 100 }, (_, i) => ({
  doc: `P${String(i + 1).padStart(11, '0')}`,
  name: `PLAIN COMPANY ${i + 1} INC`,
  city: 'TAMPA',
  zip: '33602',
}));
const moving: Corp = { doc: 'L26000000001', name: 'ACME WIDGETS LLC', city: 'MIAMI' };
const closing: Corp = { doc: 'L26000000002', name: 'CLOSING SOON LLC' };
const leaving: Corp = { doc: 'L26000000003', name: 'LEAVING SOON LLC', agent: 'SUNBIZ AGENTS LLC' };
const arriving: Corp = { doc: 'L26000000004', name: 'SUNRISE BAKERY LLC', city: 'ORLANDO', zip: '32801' };
const filed = (doc: string, seq: number, code: string): Ev => ({ doc, seq, code, filed: '04012026' });

const q1 = {
  corps: [moving, closing, leaving, ...plain],
  events: [filed(moving.doc, 1, 'ANNUAL REPORT'), filed(leaving.doc, 1, 'AMENDMENT')],
};
const q2 = {
  corps: [
    { ...moving, city: 'TAMPA', zip: '33602', officers: [{ title: 'MGR', name: person('GARCIA', 'MARIA') }] },
    { ...closing, status: 'I' },
    arriving,
    ...plain,
  ],
  events: [
    { ...filed(moving.doc, 1, 'ANNUAL REPORT'), description: 'ANNUAL REPORT, CORRECTED' },
    filed(moving.doc, 2, 'AMENDMENT'),
  ],
};

interface Row {
  sequence: number;
  kind: string;
  document_number: string;
  entity_type: string | null;
  county: string | null;
  file: string;
  changes: Array<{ field: string; before: unknown; after: unknown }>;
}

const feed = async (): Promise<Row[]> =>
  (
    await db.pool.query<Row>(
      `SELECT c.sequence::int, c.kind, c.document_number, c.entity_type, c.county, f.file, c.changes
       FROM registry.changes c JOIN registry.change_files f ON f.id = c.file_id ORDER BY c.sequence`,
    )
  ).rows;

const load = async (files: string[]): Promise<string[]> => {
  const lines: string[] = [];
  const summary = await importFiles(db.pool, files, { log: (l) => lines.push(l), frequentWord: 2 });
  assert.ok(summary.files.every((f) => f.status === 'imported'));
  return lines.filter((l) => l.includes('change feed')).map((l) => l.replace(/ in [\d.]+ s$/, ''));
};

/** A change's fields by name, its values as they read (each change as {field: [before, after]}). */
const fields = (r: Row): Record<string, [unknown, unknown]> =>
  Object.fromEntries(r.changes.map((c) => [c.field, [c.before, c.after]]));

describe('quarterly snapshots in the change feed', () => {
  it('writes nothing on a first load: the feed begins after it', async () => {
    assert.deepEqual(await load(await snapshot('2026-06-30', q1.corps, q1.events)), []);
    assert.deepEqual(await feed(), []);
  });

  it('writes what the next snapshot changes against the live dataset, and nothing else', async () => {
    const lines = await load(await snapshot('2026-09-30', q2.corps, q2.events));
    assert.deepEqual(lines, [
      'cordata.zip: change feed diff: 4 differ',
      'cordata.zip: change feed: 4 changes written',
      'corevent.zip: change feed diff: 3 differ',
      'corevent.zip: change feed: 3 changes written',
    ]);
    const rows = await feed();
    assert.deepEqual(
      rows.map((r) => [r.sequence, r.file, r.kind, r.document_number, r.entity_type, r.county]),
      [
        [1, 'cordata.zip', 'updated', moving.doc, 'FLAL', 'Hillsborough'],
        [2, 'cordata.zip', 'status_changed', closing.doc, 'FLAL', 'Miami-Dade'],
        [3, 'cordata.zip', 'removed', leaving.doc, 'FLAL', 'Miami-Dade'],
        [4, 'cordata.zip', 'created', arriving.doc, 'FLAL', 'Orange'],
        // Typed by the live entity: the one the corporate snapshot removed has none.
        [5, 'corevent.zip', 'filing', moving.doc, 'FLAL', 'Hillsborough'],
        [6, 'corevent.zip', 'filing', moving.doc, 'FLAL', 'Hillsborough'],
        [7, 'corevent.zip', 'filing', leaving.doc, null, null],
      ],
    );
    const [updated, status, removed, created, corrected, added, dropped] = rows as [Row, Row, Row, Row, Row, Row, Row];
    assert.deepEqual(fields(updated), {
      principal_city: ['MIAMI', 'TAMPA'],
      principal_zip: ['33101', '33602'],
      officers: [[], [{ slot: 1, title: 'MGR', name: 'GARCIA, MARIA' }]],
    });
    assert.deepEqual(fields(status), { status: ['A', 'I'] });
    assert.deepEqual(fields(removed).name, ['LEAVING SOON LLC', null]);
    assert.deepEqual(fields(removed).agent_name, ['SUNBIZ AGENTS LLC', null]);
    assert.ok(removed.changes.every((c) => c.after === null && c.before !== null));
    assert.deepEqual(fields(created).name, [null, 'SUNRISE BAKERY LLC']);
    assert.deepEqual(fields(created).principal_city, [null, 'ORLANDO']);
    assert.ok(!('officers' in fields(created)), 'no officers: nothing to report');
    const filing = (r: Row): { before: Record<string, unknown> | null; after: Record<string, unknown> | null } =>
      r.changes[0] as never;
    assert.deepEqual(
      [filing(corrected).before?.description, filing(corrected).after?.description],
      ['ANNUAL REPORT', 'ANNUAL REPORT, CORRECTED'],
    );
    assert.equal(filing(added).before, null);
    assert.equal(filing(added).after?.sequence, 2);
    assert.equal(filing(dropped).after, null);
    assert.equal(filing(dropped).before?.code, 'AMENDMENT');
  });

  it('writes nothing when the same content comes again', async () => {
    const before = await feed();
    assert.deepEqual(await load(await snapshot('2026-10-01', q2.corps, q2.events)), [
      'cordata.zip: change feed diff: 0 differ',
      'cordata.zip: change feed: 0 changes written',
      'corevent.zip: change feed diff: 0 differ',
      'corevent.zip: change feed: 0 changes written',
    ]);
    assert.deepEqual(await feed(), before);
  });

  it('writes nothing when the swap is rolled back', async () => {
    const before = await feed();
    const [zip] = await snapshot('2026-10-02', [{ ...moving, city: 'ORLANDO' }, ...plain], []);
    const { files } = await discover([zip!]);
    const lines: string[] = [];
    await assert.rejects(
      loadSnapshot(
        db.pool,
        files[0]!,
        silentProgress,
        (l) => lines.push(l),
        () => Promise.reject(new Error('recording failed')),
        undefined,
        { frequentWord: 2 },
      ),
      /recording failed/,
    );
    assert.ok(
      lines.some((l) => /change feed: \d+ changes written/.test(l) && !l.includes(': 0 changes')),
      lines.join('\n'),
    );
    assert.deepEqual(await feed(), before);
    const { rows } = await db.pool.query('SELECT last_sequence::int AS n FROM registry.change_state');
    assert.equal(rows[0].n, before.length, 'the counter rolled back with the changes');
  });
});
