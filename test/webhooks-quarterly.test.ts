// Monitoring of quarterly snapshots (docs/webhooks.md, "Quarterly snapshots"): a full load reports what it
// changes against the live dataset, in the swap's transaction; nothing for unchanged entities, nothing on a
// first load or when nothing is watched (no comparison at all), nothing when the same content comes again
// or the swap is rolled back.
import { OPERATOR } from '../src/accounts/audit.js';
import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import yazl from 'yazl';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { ManualClock } from '../src/clock.js';
import { addSavedSearch, addWatch, createEndpoint } from '../src/monitoring/store.js';
import { importRegistry } from '../src/main/importer.js';
import { monitoringObserver } from '../src/monitoring/observer.js';
import { silentProgress } from '../src/registry/import/progress.js';
import { loadSnapshot } from '../src/registry/import/snapshot.js';
import { discover } from '../src/registry/import/sources.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { corporate, event, fileOf, person, type Corp } from './support/records.js';

let db: TestDatabase;
let dir: string;

before(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'rl-webhooks-quarterly-'));
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** A quarterly zip of one member dated `date` (YYYY-MM-DD), in its own directory (same name each time). */
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

/** Entities nobody watches and no saved search matches, the same in every snapshot. */
const others: Corp[] = Array.from({ length: 300 }, (_, i) => ({
  doc: `P${String(i + 1).padStart(11, '0')}`,
  name: `PLAIN COMPANY ${i + 1} INC`,
  city: 'TAMPA',
}));
const WATCHED = 'L26000000001';
const GONE = 'L26000000002';
const acme: Corp = { doc: WATCHED, name: 'ACME WIDGETS LLC', city: 'MIAMI', fileDate: '09282020' };
const gone: Corp = { doc: GONE, name: 'LEAVING SOON LLC', city: 'MIAMI' };
const changedAcme: Corp = {
  ...acme,
  city: 'TAMPA',
  officers: [{ title: 'MGR', name: person('GARCIA', 'MARIA') }],
};
const bakery: Corp = { doc: 'L26000000003', name: 'SUNRISE BAKERY LLC', city: 'ORLANDO' };
const other: Corp = { doc: 'L26000000004', name: 'SUNSET BAKERY LLC', city: 'MIAMI' };

const corporateSnapshot = (date: string, records: Corp[]): Promise<string> =>
  snapshotZip('cordata.zip', 'cordata0.txt', fileOf(records.map(corporate), true), date);
const eventSnapshot = (date: string, seqs: number[]): Promise<string> =>
  snapshotZip(
    'corevent.zip',
    'corevent0.txt',
    fileOf(
      [
        ...seqs.map((seq) => event({ doc: WATCHED, seq, code: 'AMENDMENT', filed: '09252026' })),
        ...others.slice(0, 50).map((o) => event({ doc: o.doc, seq: 1, code: 'ANNUAL REPORT', filed: '04012026' })),
      ],
      true,
    ),
    date,
  );

/** Imports the files; returns the monitoring lines of the import log. */
async function load(files: string[]): Promise<string[]> {
  const lines: string[] = [];
  const summary = await importRegistry(db.pool, files, { log: (l) => lines.push(l), frequentWord: 2 });
  assert.ok(summary.files.every((f) => f.status === 'imported'));
  return lines.filter((l) => /^\S+: monitoring /.test(l));
}

const stored = async (): Promise<Array<{ type: string; document_number: string; data: Record<string, unknown> }>> =>
  (
    await db.pool.query<{ type: string; document_number: string; data: Record<string, unknown> }>(
      `SELECT type, document_number, payload->'data' AS data FROM monitoring_events ORDER BY type, document_number`,
    )
  ).rows;

describe('quarterly snapshots and monitoring', () => {
  it('compares nothing on a first load, nor later while nothing is watched', async () => {
    const q1 = [acme, gone, ...others];
    assert.deepEqual(
      await load([await corporateSnapshot('2026-07-01', q1), await eventSnapshot('2026-07-01', [1])]),
      [],
    );
    // A non-empty dataset, still nothing monitored: the comparison is skipped, not run and found empty.
    const q1b = [{ ...acme, city: 'DORAL' }, gone, ...others];
    assert.deepEqual(
      await load([await corporateSnapshot('2026-07-02', q1b), await eventSnapshot('2026-07-02', [1, 2])]),
      [],
    );
    assert.deepEqual(await stored(), []);
  });

  it('reports what the next snapshot changes for watched entities and saved searches, and nothing else', async () => {
    await load([await corporateSnapshot('2026-07-03', [acme, gone, ...others])]);
    const clock = new ManualClock('2026-07-03T12:00:00Z');
    const workspace = (await createWorkspace(db.pool, { plan: 'growth' }, 'pepper', clock)).workspace.id;
    await addWatch(db.pool, workspace, 'growth', WATCHED);
    await addWatch(db.pool, workspace, 'growth', GONE);
    const search = await addSavedSearch(db.pool, workspace, 'growth', 'Orlando bakeries', {
      name: 'bakery',
      principal_city: 'ORLANDO',
    });
    await createEndpoint(
      db.pool,
      workspace,
      'growth',
      'http://127.0.0.1:9/hook',
      ['entity.created', 'entity.updated', 'saved_search.match'],
      true,
      OPERATOR,
    );

    // Next quarter: the watched entity moved and has a manager, a bakery in Orlando and one in Miami are
    // new, a watched entity is gone, 300 are unchanged, and the events file adds a third filing to the watched one.
    const q2 = [changedAcme, bakery, other, ...others];
    const lines = await load([await corporateSnapshot('2026-10-01', q2), await eventSnapshot('2026-10-01', [1, 2, 3])]);
    assert.deepEqual(
      lines.map((l) => l.replace(/ in [\d.]+ s$/, '')),
      [
        'cordata.zip: monitoring diff: 3 differ',
        'cordata.zip: monitoring read before the swap',
        'cordata.zip: monitoring events: 3 written',
        'corevent.zip: monitoring diff: 1 differ',
        'corevent.zip: monitoring read before the swap',
        'corevent.zip: monitoring events: 1 written',
      ],
    );
    const events = await stored();
    const match = { document_number: bakery.doc, saved_search: { id: search.id, name: 'Orlando bakeries' } };
    const [filings, updated] = events.filter((e) => e.type === 'entity.updated');
    assert.deepEqual(
      events.map((e) => [e.type, e.document_number]),
      [
        ['entity.created', bakery.doc],
        ['entity.updated', WATCHED],
        ['entity.updated', WATCHED],
        ['saved_search.match', bakery.doc],
      ],
    );
    assert.deepEqual(events[0]!.data, match);
    assert.deepEqual(events[3]!.data, match);
    const changes = [filings, updated].find((e) => (e!.data.changes as unknown[]).length === 2)!.data.changes;
    assert.deepEqual(changes, [
      { field: 'principal_city', old: 'MIAMI', new: 'TAMPA' },
      { field: 'officers', old: [], new: [{ title: 'MGR', name: 'GARCIA, MARIA' }] },
    ]);
    const filed = [filings, updated].find((e) => e !== undefined && e.data.changes !== changes)!;
    assert.equal(typeof filed.data.name, 'string', 'an events file names the entity as every update does');
    const added = filed.data.changes;
    assert.deepEqual(
      (added as Array<{ field: string; new: { sequence: number } }>).map((c) => [c.field, c.new.sequence]),
      [['filing_events', 3]],
    );
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
    assert.equal(rows[0]!.n, 4, 'one delivery per event to the subscribed endpoint');

    // The same content again, as a later snapshot: compared, nothing differs, nothing written.
    assert.deepEqual(
      (await load([await corporateSnapshot('2026-10-02', q2), await eventSnapshot('2026-10-02', [1, 2, 3])])).map((l) =>
        l.replace(/ in [\d.]+ s$/, ''),
      ),
      [
        'cordata.zip: monitoring diff: 0 differ',
        'cordata.zip: monitoring read before the swap',
        'cordata.zip: monitoring events: 0 written',
        'corevent.zip: monitoring diff: 0 differ',
        'corevent.zip: monitoring read before the swap',
        'corevent.zip: monitoring events: 0 written',
      ],
    );
    assert.equal((await stored()).length, 4);
  });

  it('writes nothing when the swap is rolled back', async () => {
    const before = (await stored()).length;
    const zip = await corporateSnapshot('2026-10-03', [{ ...changedAcme, city: 'ORLANDO' }, bakery, ...others]);
    const { files } = await discover([zip]);
    const lines: string[] = [];
    await assert.rejects(
      loadSnapshot(
        db.pool,
        files[0]!,
        silentProgress,
        (l) => lines.push(l),
        () => Promise.reject(new Error('recording failed')),
        undefined,
        { frequentWord: 2, observer: monitoringObserver },
      ),
      /recording failed/,
    );
    assert.ok(
      lines.some((l) => l.includes('monitoring events: 1 written')),
      lines.join('\n'),
    );
    assert.equal((await stored()).length, before);
    const { rows } = await db.pool.query<{ city: string }>(
      'SELECT principal_city AS city FROM registry.entities WHERE document_number = $1',
      [WATCHED],
    );
    assert.equal(rows[0]!.city, 'TAMPA', 'the live dataset is the one before the failed swap');
  });
});
