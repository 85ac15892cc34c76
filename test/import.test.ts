// The importer on hand-built files: daily changes, idempotent re-import, newest wins, snapshots
// swapped in whole (with newer daily changes carried over), and readers never seeing a mix.
import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import yazl from 'yazl';
import { CopyWriter } from '../src/registry/import/copy.js';
import { corporateDerivations, eventDerivations } from '../src/registry/import/derived.js';
import { importFiles } from '../src/registry/import/index.js';
import { countsDisagree } from './support/counts.js';
import { corporate, event, fileOf, person, type Corp } from './support/records.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
let dir: string;

before(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'rl-import-'));
});
after(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, content: Buffer): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, content);
  return file;
}

/** A quarterly zip whose members are dated `date` (YYYY-MM-DD). */
async function snapshotZip(name: string, members: Record<string, Buffer>, date: string): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [member, content] of Object.entries(members))
    zip.addBuffer(content, member, { mtime: new Date(`${date}T12:00:00Z`) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const file = await write(name, Buffer.concat(chunks));
  await utimes(file, new Date(), new Date());
  return file;
}

const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
  (await db.pool.query(sql, params)).rows as T[];

const docs = (n: number, prefix: string, from = 1): Corp[] =>
  Array.from({ length: n }, (_, i) => ({
    doc: `${prefix}${String(from + i).padStart(11, '0')}`,
    name: `${prefix} COMPANY ${from + i} LLC`,
  }));

describe('importer', () => {
  it('applies a snapshot, then daily files, each once', async () => {
    const snapshot = await snapshotZip(
      'cordata.zip',
      {
        'cordata0.txt': fileOf(docs(3, 'L').map(corporate), true),
        'cordata1.txt': fileOf(
          [
            corporate({
              doc: 'P20000000001',
              name: 'SUNSHINE HOLDINGS, INC.',
              type: 'DOMP',
              agent: 'CORPORATION SERVICE COMPANY',
              officers: [
                { title: 'P', name: person('GARCIA', 'MARIA', 'L') },
                { title: 'D', name: person("O'BRIEN", 'SEAN') },
              ],
            }),
          ],
          true,
        ),
      },
      '2026-10-01',
    );
    const events = await snapshotZip(
      'corevent.zip',
      {
        'corevent0.txt': fileOf([event({ doc: 'L00000000001', seq: 1, code: 'CORAMADMAR', filed: '09252026' })], true),
      },
      '2026-10-01',
    );
    const lines: string[] = [];
    const first = await importFiles(db.pool, [snapshot, events], { log: (l) => lines.push(l) });
    // Prewarmed once, after the last snapshot of the run (not between the two).
    const warmed = lines.flatMap((l, i) => (/^dataset: prewarmed \d+ relations/.test(l) ? [i] : []));
    assert.equal(warmed.length, 1, lines.join('\n'));
    assert.ok(lines.slice(0, warmed[0]).some((l) => l.startsWith('corevent.zip: derived tables')));
    assert.deepEqual(
      first.files.map((f) => [f.kind, f.status, f.records_loaded, f.records_rejected]),
      [
        ['quarterly_corporate', 'imported', 4, 0],
        ['quarterly_events', 'imported', 1, 0],
      ],
    );
    assert.equal(first.dataset.entities, 4);
    assert.equal(first.dataset.officers, 2);
    assert.equal(first.dataset.snapshot_date, '2026-10-01');

    const [officer] = await q(
      `SELECT slot, title, name, name_sorted, name_words FROM registry.officers WHERE slot = 2`,
    );
    assert.deepEqual(officer, {
      slot: 2,
      title: 'D',
      name: "O'BRIEN, SEAN",
      name_sorted: 'OBRIEN SEAN',
      name_words: ['OBRIEN', 'SEAN'],
    });
    const [entity] = await q(
      `SELECT name_norm, name_core, name_words, agent_key FROM registry.entities
       WHERE document_number = 'P20000000001'`,
    );
    assert.deepEqual(entity, {
      name_norm: 'SUNSHINE HOLDINGS INC',
      name_core: 'SUNSHINE HOLDINGS',
      name_words: ['SUNSHINE', 'HOLDINGS'],
      agent_key: 'CORP SERVICE CO',
    });
    assert.deepEqual(await q(`SELECT document_number, letter FROM registry.inactivations`), [
      { document_number: 'L00000000001', letter: 'd' },
    ]);

    const daily = await write(
      '20261005c.txt',
      fileOf([
        corporate({ doc: 'L26000000001', name: 'NEW VENTURE LLC', fileDate: '09282026' }),
        corporate({ doc: 'L00000000002', name: 'L COMPANY 2 RENAMED LLC', fileDate: '01152020' }),
        Buffer.alloc(900, 0x20), // truncated
        corporate({ doc: 'L26000000002', name: 'BAD DATE LLC', fileDate: '02302026' }),
        // The same day, a later line: it wins.
        corporate({ doc: 'L26000000001', name: 'NEW VENTURE HOLDINGS LLC', fileDate: '09282026' }),
      ]),
    );
    const dailyLines: string[] = [];
    const second = await importFiles(db.pool, [daily], { log: (l) => dailyLines.push(l) });
    // Vacuumed, then prewarmed again after the daily file (it leaves pages that index-only scans read
    // the heap for, and pushes hot pages out of the cache).
    assert.match(
      dailyLines[dailyLines.length - 2]!,
      /^dataset: vacuumed entity_postings, entities, officers in /,
      dailyLines.join('\n'),
    );
    assert.match(dailyLines[dailyLines.length - 1]!, /^dataset: prewarmed \d+ relations/, dailyLines.join('\n'));
    const vacuumed = await q(
      `SELECT relname FROM pg_stat_user_tables WHERE schemaname = 'registry'
       AND last_vacuum > (SELECT finished_at FROM imports WHERE file_name = '20261005c.txt') ORDER BY relname`,
    );
    assert.deepEqual(
      vacuumed.map((r) => r.relname),
      ['entities', 'entity_postings', 'officers'],
    );
    // The postings the file wrote are all-visible: their index is read without the table.
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off');
      await c.query('SET LOCAL enable_bitmapscan = off');
      const { rows } = await c.query<{
        'QUERY PLAN': Array<{ Plan: { 'Node Type': string; 'Heap Fetches': number } }>;
      }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) SELECT document_number, id FROM registry.entity_postings WHERE slice = 'p:N'
         ORDER BY prefix DESC, sim DESC, filed DESC, document_number`,
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      assert.deepEqual([plan['Node Type'], plan['Heap Fetches']], ['Index Only Scan', 0]);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
    const f = second.files[0]!;
    assert.deepEqual([f.records_read, f.records_loaded, f.records_updated, f.records_rejected], [5, 1, 1, 2]);
    assert.deepEqual(
      f.rejects.map((r) => [r.line, /900 bytes|impossible date/.test(r.reason)]),
      [
        [3, true],
        [4, true],
      ],
    );
    assert.equal(second.dataset.entities, 5);
    assert.deepEqual(await q(`SELECT name FROM registry.entities WHERE document_number = 'L26000000001'`), [
      { name: 'NEW VENTURE HOLDINGS LLC' },
    ]);

    const againLines: string[] = [];
    const again = await importFiles(db.pool, [daily, snapshot], { log: (l) => againLines.push(l) });
    assert.deepEqual(
      again.files.map((x) => x.status),
      ['already_imported', 'already_imported'],
    );
    assert.ok(!againLines.some((l) => l.startsWith('dataset: prewarmed')), againLines.join('\n'));
    assert.equal(again.dataset.version, second.dataset.version);
  });

  it('keeps the newest record when an older daily file arrives late', async () => {
    const newer = await write('20261010c.txt', fileOf([corporate({ doc: 'L00000000003', name: 'THIRD NEWEST LLC' })]));
    const older = await write('20261007c.txt', fileOf([corporate({ doc: 'L00000000003', name: 'THIRD OLDER LLC' })]));
    await importFiles(db.pool, [newer]);
    const late = await importFiles(db.pool, [older]);
    assert.equal(late.files[0]!.records_skipped_older, 1);
    assert.deepEqual(await q(`SELECT name FROM registry.entities WHERE document_number = 'L00000000003'`), [
      { name: 'THIRD NEWEST LLC' },
    ]);
  });

  it('orders files by date whatever the order given', async () => {
    const a = await write('20261012c.txt', fileOf([corporate({ doc: 'L00000000004', name: 'FOURTH A LLC' })]));
    const b = await write('20261013c.txt', fileOf([corporate({ doc: 'L00000000004', name: 'FOURTH B LLC' })]));
    const r = await importFiles(db.pool, [b, a]);
    assert.deepEqual(
      r.files.map((x) => path.basename(x.file)),
      ['20261012c.txt', '20261013c.txt'],
    );
    assert.deepEqual(await q(`SELECT name FROM registry.entities WHERE document_number = 'L00000000004'`), [
      { name: 'FOURTH B LLC' },
    ]);
  });

  it('applies daily events and refines the status from the last inactivating one', async () => {
    const ev = await write(
      '20261014ce.txt',
      fileOf([
        event({ doc: 'L00000000002', seq: 1, code: 'CORAPVOLDS', filed: '10012026' }),
        event({ doc: 'L00000000002', seq: 2, code: 'CORAMADREV', filed: '10102026' }),
      ]),
    );
    const r = await importFiles(db.pool, [ev]);
    assert.equal(r.files[0]!.records_loaded, 2);
    assert.deepEqual(
      await q(`SELECT letter, code FROM registry.inactivations WHERE document_number = 'L00000000002'`),
      [{ letter: 'r', code: 'CORAMADREV' }],
    );
  });

  it('swaps a new snapshot in whole, carrying over newer daily changes; readers never see a mix', async () => {
    const before = (await q<{ n: number }>('SELECT count(*)::int AS n FROM registry.entities'))[0]!.n;
    const definitions = `
      SELECT c.relname AS tbl, pg_get_indexdef(x.indexrelid) AS def
      FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid
      WHERE c.relnamespace = 'registry'::regnamespace ORDER BY 1, 2`;
    const indexesBefore = await q(definitions);
    const big = docs(3000, 'M');
    const snapshot = await snapshotZip(
      'cordata.zip',
      { 'cordata0.txt': fileOf(big.map(corporate), true) },
      '2026-10-06',
    );

    const seen = new Set<number>();
    let loading = true;
    const reader = (async () => {
      while (loading) {
        seen.add((await q<{ n: number }>('SELECT count(*)::int AS n FROM registry.entities'))[0]!.n);
      }
    })();
    // A snapshot older than the load held until its tables are built, as a long index build on the
    // load's other connection does at full scale: the load's own vacuum then marks no page all-visible.
    const older = await db.pool.connect();
    let released: Promise<unknown> | undefined;
    let r: Awaited<ReturnType<typeof importFiles>>;
    try {
      await older.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await older.query('SELECT 1');
      r = await importFiles(db.pool, [snapshot], {
        log: (line) => {
          if (line.startsWith('cordata.zip: derived tables')) released ??= older.query('COMMIT');
        },
      });
    } finally {
      // Never back in the pool inside its transaction, whatever the load did.
      await (released ?? older.query('ROLLBACK'));
      older.release();
    }
    loading = false;
    await reader;
    assert.ok(released, 'the load logged its derived tables');

    // Newer than the snapshot (2026-10-06): the 10-07, 10-10, 10-12 and 10-13 daily records survive.
    const carried = 2;
    assert.equal(r.dataset.entities, 3000 + carried);
    assert.deepEqual(
      await q(`SELECT document_number, name FROM registry.entities WHERE document_number LIKE 'L%' ORDER BY 1`),
      [
        { document_number: 'L00000000003', name: 'THIRD NEWEST LLC' },
        { document_number: 'L00000000004', name: 'FOURTH B LLC' },
      ],
    );
    assert.ok(
      [...seen].every((n) => n === before || n === 3000 + carried),
      `reader saw ${[...seen].join(', ')}`,
    );
    assert.ok(seen.has(before));
    // Every table swapped in was indexed as its migrations say, and has statistics.
    assert.deepEqual(await q(definitions), indexesBefore);
    assert.deepEqual(
      await q(
        `SELECT relname FROM pg_stat_user_tables
         WHERE schemaname = 'registry' AND last_analyze IS NULL AND relname = ANY($1::text[]) ORDER BY 1`,
        [
          [
            'entities',
            'officers',
            'agents',
            'agent_spellings',
            'entity_words',
            'officer_words',
            'agent_words',
            'address_words',
            'entity_word_keys',
            'officer_word_keys',
            'agent_word_keys',
            'address_word_keys',
            'entity_counts',
            'entity_day_counts',
            'entity_postings',
          ],
        ],
      ),
      [],
    );
    // The postings, read index-only, are all-visible once the load is in. (Not so the entities' pages
    // of the carried-over rows here: the reader's counts began before those were written.)
    assert.deepEqual(
      await q(
        `SELECT relpages > 0 AND relallvisible = relpages AS all_visible
         FROM pg_class WHERE oid = 'registry.entity_postings'::regclass`,
      ),
      [{ all_visible: true }],
    );
  });

  it('keeps room on every entity page, so a change to no indexed column rewrites the row on its own page', async () => {
    // The tables' fillfactor (001_registry.sql), carried to the staged tables of the snapshot just swapped in.
    const roomy = [
      'address_words',
      'agent_spellings',
      'agent_words',
      'entities',
      'entity_counts',
      'entity_day_counts',
      'entity_words',
      'officer_words',
    ];
    assert.deepEqual(
      await q(
        `SELECT relname, reloptions FROM pg_class
         WHERE relnamespace = 'registry'::regnamespace AND relname = ANY($1::text[]) ORDER BY 1`,
        [roomy],
      ),
      roomy.map((relname) => ({ relname, reloptions: ['fillfactor=90'] })),
    );
    const place = async (doc: string) =>
      (
        await q<{ block: string; xmin: string }>(
          `SELECT (ctid::text::point)[0]::text AS block, xmin::text FROM registry.entities WHERE document_number = $1`,
          [doc],
        )
      )[0]!;
    const doc = 'M00000000001';
    const before = await place(doc);
    assert.equal(before.block, '0');
    // A new officer: none of the entity's indexed columns changes.
    await importFiles(db.pool, [
      await write(
        '20261030c.txt',
        fileOf([corporate({ doc, name: 'M COMPANY 1 LLC', officers: [{ title: 'MGR', name: person('POE', 'EVE') }] })]),
      ),
    ]);
    const now = await place(doc);
    assert.notEqual(now.xmin, before.xmin, 'the row was rewritten');
    assert.equal(
      now.block,
      before.block,
      'on the page it was on (a full page would have sent it to the end of the table)',
    );
  });

  it('shows each agent by its most frequent spellings, moved by daily files through the word keys', async () => {
    // Every group as recounted from the entities themselves (mode() picks the first of equally frequent values).
    const recount = `
      SELECT agent_key, coalesce(agent_zip5, '') AS zip5, mode() WITHIN GROUP (ORDER BY agent_name) AS name,
             mode() WITHIN GROUP (ORDER BY agent_city) AS city, mode() WITHIN GROUP (ORDER BY agent_state) AS state,
             count(*)::int AS entity_count, min(agent_words) AS name_words
      FROM registry.entities WHERE agent_key IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`;
    const shown =
      'SELECT agent_key, zip5, name, city, state, entity_count, name_words FROM registry.agents ORDER BY 1, 2';
    const spellings = `
      SELECT agent_key, coalesce(agent_zip5, '') AS zip5, agent_name AS name, agent_city AS city, agent_state AS state,
        agent_words AS words, count(*)::int AS n
      FROM registry.entities WHERE agent_key IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`;
    const kept = `SELECT agent_key, zip5, name, city, state, words, n FROM registry.agent_spellings`;
    const agreesWithEntities = async (): Promise<void> => {
      assert.deepEqual(await q(shown), await q(recount));
      assert.deepEqual(await q(`(${kept} EXCEPT ALL ${spellings}) UNION ALL (${spellings} EXCEPT ALL ${kept})`), []);
      assert.deepEqual(await q('SELECT id FROM registry.agents GROUP BY id HAVING count(*) > 1'), []);
      // Each dictionary's deletion keys are those of its words: a new word arrives with its keys.
      for (const kind of ['entity', 'officer', 'agent', 'address']) {
        const keys = `SELECT key, word FROM registry.${kind}_word_keys`;
        const recounted = `SELECT k, word FROM registry.${kind}_words, unnest(registry.word_keys(word)) AS k`;
        assert.deepEqual(
          await q(`(${keys} EXCEPT ALL ${recounted}) UNION ALL (${recounted} EXCEPT ALL ${keys})`),
          [],
          kind,
        );
      }
    };
    const firm = (doc: string, agent: string, agentCity?: string, officers: Corp['officers'] = []): Buffer =>
      corporate({ doc, name: `FIRM ${doc} LLC`, agent, agentCity, officers });
    const group = async () =>
      (await q(`SELECT id, name, city, entity_count FROM registry.agents WHERE agent_key = 'CORP SERVICE CO'`))[0];

    // Daily files move the stored counts by their difference instead of recounting.
    const countsAgree = async (r: Awaited<ReturnType<typeof importFiles>>): Promise<void> => {
      const [real] = await q(`SELECT (SELECT count(*)::int FROM registry.entities) AS entities,
                                     (SELECT count(*)::int FROM registry.officers) AS officers,
                                     (SELECT count(*)::int FROM registry.events) AS events,
                                     (SELECT count(*)::int FROM registry.agents) AS agents`);
      const { entities, officers, events, agents } = r.dataset;
      assert.deepEqual(
        { entities: Number(entities), officers: Number(officers), events: Number(events), agents: Number(agents) },
        real,
      );
    };

    await agreesWithEntities(); // as the snapshot above built them
    const first = await importFiles(db.pool, [
      await write(
        '20261020c.txt',
        fileOf([
          firm('A00000000001', 'CORPORATION SERVICE COMPANY', undefined, [
            { title: 'P', name: person('DOE', 'JANE') },
            { title: 'D', name: person('DOE', 'JOHN') },
          ]),
          firm('A00000000002', 'CORPORATION SERVICE COMPANY'),
          firm('A00000000003', 'CORPORATION SERVICE COMPANY', 'TAMPA BAY'),
          firm('A00000000004', 'CORPORATION SERVICE CO.', 'TAMPA BAY'),
          firm('A00000000005', 'CORPORATION SERVICE CO.', 'TAMPA BAY'),
          firm('A00000000007', 'ZEPHYR AGENTS LLC'), // a newer group numbered after it
        ]),
      ),
    ]);
    await countsAgree(first);
    const before = await group();
    assert.deepEqual(
      { ...before, id: undefined },
      { id: undefined, name: 'CORPORATION SERVICE COMPANY', city: 'TAMPA BAY', entity_count: 5 },
    );
    await agreesWithEntities();

    // Two firms change to the shorter spelling, two leave for another agent, a new one arrives.
    const second = await importFiles(db.pool, [
      await write(
        '20261021c.txt',
        fileOf([
          firm('A00000000001', 'CORPORATION SERVICE CO.', undefined, [{ title: 'P', name: person('DOE', 'JANE') }]),
          firm('A00000000002', 'REGISTERED AGENTS INC.'),
          firm('A00000000003', 'CORPORATION SERVICE CO.', 'TAMPA BAY'),
          firm('A00000000004', 'REGISTERED AGENTS INC.'),
          firm('A00000000006', 'CORPORATION SERVICE CO.'),
        ]),
      ),
    ]);
    // CO. 4, COMPANY none; TAMPA 2 against TAMPA BAY 2, the tie to the first in order. Same id.
    assert.deepEqual(await group(), {
      id: before!.id,
      name: 'CORPORATION SERVICE CO.',
      city: 'TAMPA',
      entity_count: 4,
    });
    await agreesWithEntities();
    await countsAgree(second);
    assert.deepEqual(
      await q(`SELECT name, n FROM registry.agent_spellings WHERE name = 'CORPORATION SERVICE COMPANY'`),
      [],
    );
  });

  it('rewrites only the officers a daily file changes, leaving the unchanged rows as they were', async () => {
    const officersOf = (doc: string) =>
      q<{ slot: number; title: string; name: string; xmin: string }>(
        `SELECT slot, title, name, xmin::text FROM registry.officers WHERE document_number = $1 ORDER BY slot`,
        [doc],
      );
    const doc = 'B00000000001';
    const ann = { title: 'P', name: person('ROE', 'ANN') };
    await importFiles(db.pool, [
      await write(
        '20261022c.txt',
        fileOf([
          corporate({
            doc,
            name: 'BRIGHT HARBOR LLC',
            officers: [ann, { title: 'D', name: person('ROE', 'BEN') }, { title: 'T', name: person('ROE', 'CY') }],
          }),
        ]),
      ),
    ]);
    const before = await officersOf(doc);
    // A report keeps slot 1 as it was, retitles slot 2, drops slot 3 and the entity's address changes.
    const r = await importFiles(db.pool, [
      await write(
        '20261023c.txt',
        fileOf([
          corporate({
            doc,
            name: 'BRIGHT HARBOR LLC',
            street: '2 SEA AVE',
            officers: [ann, { title: 'VP', name: person('ROE', 'BEN') }],
          }),
        ]),
      ),
    ]);
    const now = await officersOf(doc);
    assert.deepEqual(
      now.map(({ slot, title, name }) => ({ slot, title, name })),
      [
        { slot: 1, title: 'P', name: 'ROE, ANN' },
        { slot: 2, title: 'VP', name: 'ROE, BEN' },
      ],
    );
    assert.equal(now[0]!.xmin, before[0]!.xmin, 'the unchanged officer is not rewritten');
    assert.notEqual(now[1]!.xmin, before[1]!.xmin);
    const [real] = await q<{ n: number }>('SELECT count(*)::int AS n FROM registry.officers');
    assert.equal(Number(r.dataset.officers), real!.n);
  });

  it('parses a corporate snapshot on worker threads into the same rows as on one thread', async () => {
    // Two members, so two batches on two workers: the small second one may be parsed first, and its
    // repeated document number must still be the one kept (the last line wins). Two records hold
    // what COPY escapes (a backslash, a tab) or an array literal would (a quote): the workers write
    // most rows unescaped, and must not those.
    const many = docs(1500, 'W');
    const escaped = 'BACK\\SLASH "QUOTED" LLC';
    many[7] = {
      ...many[7]!,
      name: escaped,
      street: '1\tMAIN ST',
      officers: [{ title: 'MGR', name: person('O\\NEIL', 'JO') }],
    };
    const snapshot = await snapshotZip(
      'cordata.zip',
      {
        'cordata0.txt': fileOf([...many.slice(0, 1499).map(corporate), Buffer.alloc(900, 0x20)], true),
        'cordata1.txt': fileOf(
          [
            corporate({ ...many[1499]!, officers: [{ title: 'MGR', name: person('ROE', 'ANN') }] }),
            corporate({ ...many[0]!, name: 'W RENAMED LLC' }),
          ],
          true,
        ),
      },
      '2026-11-02',
    );
    const loaded = async () => ({
      entities: await q(`SELECT to_jsonb(e) - 'id' AS row FROM registry.entities e ORDER BY document_number`),
      officers: await q(
        `SELECT e.document_number, to_jsonb(o) - 'entity_id' AS row
         FROM registry.officers o JOIN registry.entities e ON e.id = o.entity_id ORDER BY 1, 2::text`,
      ),
    });
    const [inOrder] = (await importFiles(db.pool, [snapshot])).files;
    const expected = await loaded();
    await q(`DELETE FROM imports WHERE file_name = 'cordata.zip'`);
    const [onWorkers] = (await importFiles(db.pool, [snapshot], { parallelFromBytes: 0 })).files;
    const got = await loaded();

    const outcome = (f: typeof inOrder) => [
      f!.records_read,
      f!.records_loaded,
      f!.records_rejected,
      f!.rejects.map((x) => x.line),
    ];
    assert.deepEqual(outcome(onWorkers), outcome(inOrder));
    assert.deepEqual(outcome(onWorkers).slice(0, 3), [1502, 1500, 1]);
    assert.equal(got.entities.length, 1500);
    assert.deepEqual(got, expected);
    assert.deepEqual(await q(`SELECT name FROM registry.entities WHERE document_number = $1`, [many[0]!.doc]), [
      { name: 'W RENAMED LLC' },
    ]);
    assert.deepEqual(
      await q(`SELECT name, principal_addr1 FROM registry.entities WHERE document_number = $1`, [many[7]!.doc]),
      [{ name: escaped, principal_addr1: '1 MAIN ST' }],
    );
    assert.deepEqual(
      await q(
        `SELECT o.name FROM registry.officers o JOIN registry.entities e ON e.id = o.entity_id
         WHERE e.document_number = $1`,
        [many[7]!.doc],
      ),
      [{ name: 'O\\NEIL, JO' }],
    );
  });

  it('parses an events snapshot on workers into the rows of one thread, a repeated event last kept', async () => {
    // 4,000 lines of 664 bytes: the first member is cut into two blocks (2 MB at most), on two workers.
    // Its last line repeats the first event and must win: events have no id, their duplicates are told
    // apart by where COPY wrote them, so blocks are written in order whichever is parsed first (which
    // this test cannot force). The second member holds a blank line, a malformed one and an
    // unterminated last line.
    const ev = (i: number, description?: string) =>
      event({
        doc: `E${String(i).padStart(11, '0')}`,
        seq: 1 + (i % 3),
        code: 'AMENDMENT',
        filed: '03042021',
        ...(description ? { description } : {}),
      });
    const snapshot = await snapshotZip(
      'corevent.zip',
      {
        'corevent0.txt': fileOf(
          [...Array.from({ length: 3998 }, (_, i) => ev(i)), ev(3998, 'A\\B\tC'), ev(0, 'REPEATED LAST')],
          true,
        ),
        'corevent1.txt': Buffer.concat([fileOf([ev(4000), Buffer.alloc(0), Buffer.alloc(300, 0x41)], true), ev(4001)]),
      },
      '2026-11-02',
    );
    const loaded = () => q(`SELECT to_jsonb(e) AS row FROM registry.events e ORDER BY document_number, sequence`);
    const [inOrder] = (await importFiles(db.pool, [snapshot])).files;
    const expected = await loaded();
    await q(`DELETE FROM imports WHERE file_name = 'corevent.zip'`);
    const [onWorkers] = (await importFiles(db.pool, [snapshot], { parallelFromBytes: 0 })).files;
    const got = await loaded();

    const outcome = (f: typeof inOrder) => [
      f!.records_read,
      f!.records_loaded,
      f!.records_rejected,
      f!.rejects.map((x) => `${x.file}:${x.line}`),
    ];
    assert.deepEqual(outcome(onWorkers), outcome(inOrder));
    assert.deepEqual(outcome(onWorkers), [4003, 4001, 1, ['corevent.zip:corevent1.txt:3']]);
    assert.equal(got.length, 4001);
    assert.deepEqual(got, expected);
    assert.deepEqual(await q(`SELECT description FROM registry.events WHERE document_number = $1`, ['E00000000000']), [
      { description: 'REPEATED LAST' },
    ]);
    // Escaped on the workers too (a description's blanks, the tab among them, collapse to one space).
    assert.deepEqual(await q(`SELECT description FROM registry.events WHERE document_number = $1`, ['E00000003998']), [
      { description: 'A\\B C' },
    ]);
  });

  it('counts a full load by status, type and filing year in every slice, undated and cityless included', async () => {
    const snapshot = await snapshotZip(
      'cordata.zip',
      {
        'cordata0.txt': fileOf(
          [
            corporate({ doc: 'C00000000001', name: 'SUN GROVE LLC', fileDate: '03012001' }),
            corporate({ doc: 'C00000000002', name: 'SUN PALM INC', type: 'DOMP', status: 'I', fileDate: '' }),
            corporate({ doc: 'C00000000003', name: 'PALM SUN CORP', city: 'TAMPA', fileDate: '' }),
            corporate({ doc: 'C00000000004', name: 'Q', city: '', fileDate: '07042019' }),
            corporate({ doc: 'C00000000005', name: 'GROVE PALM LLC', city: 'tampa', fileDate: '07042019' }),
          ],
          true,
        ),
      },
      '2026-11-09',
    );
    await importFiles(db.pool, [snapshot], { frequentWord: 2 });
    assert.deepEqual(await countsDisagree(db.pool), []);
    assert.deepEqual(
      await q(
        `SELECT slice, status, entity_type, filing_year, n FROM registry.entity_counts
         WHERE slice IN ('w:SUN', 'c:TAMPA|w:PALM') ORDER BY 1, 2, 3, 4`,
      ),
      [
        { slice: 'c:TAMPA|w:PALM', status: '', entity_type: '', filing_year: 0, n: 2 },
        { slice: 'w:SUN', status: 'A', entity_type: 'FLAL', filing_year: -1, n: 1 },
        { slice: 'w:SUN', status: 'A', entity_type: 'FLAL', filing_year: 2001, n: 1 },
        { slice: 'w:SUN', status: 'I', entity_type: 'DOMP', filing_year: -1, n: 1 },
      ],
    );
  });
});

describe('COPY writer', () => {
  it('does not wait for a drain that came while no one was waiting', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('CREATE TEMP TABLE copied (line text)');
      const writer = new CopyWriter(client, 'COPY copied (line) FROM STDIN');
      // One block past the stream's mark, so its write asks for a drain, which comes before anyone
      // waits: as when a parsed batch awaited the entities stream while the officers stream drained.
      writer.writeBytes(Buffer.from('x'.repeat(99).concat('\n').repeat(10_000)), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const waited = await Promise.race([
        writer.drained().then(() => 'drained'),
        new Promise((resolve) => setTimeout(resolve, 5_000, 'still waiting')),
      ]);
      assert.equal(waited, 'drained');
      assert.equal(await writer.end(), 10_000);
      assert.equal((await client.query<{ n: number }>('SELECT count(*)::int AS n FROM copied')).rows[0]!.n, 10_000);
    } finally {
      client.release();
    }
  });
});

describe('full-load derivations', () => {
  it('name every derived table they read, so a table keyed during the load is not locked under a reader', async () => {
    const derivations = [...corporateDerivations('registry_next'), ...eventDerivations('registry_next')];
    const derived = new Set(derivations.map((d) => d.table));
    for (const d of derivations) {
      const statements: string[] = [];
      await d.build({ query: async (sql: string) => statements.push(sql) } as unknown as pg.PoolClient);
      const read = new Set([...statements.join('\n').matchAll(/registry_next\.(\w+)/g)].map((m) => m[1]!));
      const expected = [...read].filter((t) => derived.has(t) && t !== d.table).sort();
      assert.deepEqual([...d.after].sort(), expected, d.table);
    }
  });
});
