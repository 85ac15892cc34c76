// `npm run bench:feed -- [--entities N] [--changes K] [--quick]`
// The change feed's freshness (docs/benchmarks.md, "The change feed's freshness"): on a registry of N entities (the
// benches' files, imported into `bench_feed_N`), a daily corporate file of K existing entities, each renamed and
// moved, written for the workday after the last one imported; a client of `GET /v1/changes/stream` opened on the
// compiled server; the file imported by `registry import`; and the time from the import's end (and start) until the
// client has received every change the import wrote (before the end when the import's vacuum and prewarm outlast it).
// Writes bench/results/feed-<label>.json; exits 1 past the 10 s target.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { projectRoot } from '../src/config/paths.js';
import { createPool } from '../src/db/pool.js';
import { prepareDatabase } from '../src/main/database.js';
import { build, cli, database, generateArgs, log, machine, work, writeResult } from './setup.js';
import { corporate, fileOf } from '../test/support/records.js';
import { benchServer } from '../test/support/server-process.js';

const { values: args } = parseArgs({
  options: {
    entities: { type: 'string', default: '100000' },
    changes: { type: 'string', default: '5000' },
    quick: { type: 'boolean', default: false },
  },
});
const entities = args.quick ? 20_000 : Number(args.entities);
/** A full-scale daily corporate file holds about 5,000 records (docs/bulk-files.md). */
const records = Number(args.changes);
const PEPPER = 'bench-pepper';
/** The target (issue "Data out at any size"): every change of a file readable within this long of its import. */
const TARGET_MS = 10_000;
/** How long the client may take at most before the bench gives up on it. */
const GIVE_UP_MS = 120_000;

interface Picked {
  document_number: string;
  name: string;
  status: string;
  entity_type: string;
  filed: string | null;
}

/** The workday after `yyyymmdd`, as the registry names its daily files. */
function nextWorkday(yyyymmdd: string): string {
  const d = new Date(`${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}T12:00:00Z`);
  do d.setUTCDate(d.getUTCDate() + 1);
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6);
  return d.toISOString().slice(0, 10).replaceAll('-', '');
}

/** Counts the change events a stream delivers, from the moment it says where it starts. */
function openStream(base: string, key: string) {
  let changes = 0;
  let from: number | null = null;
  let lastAt = 0;
  let buffer = '';
  const req = http.get(`${base}/v1/changes/stream`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
    if (res.statusCode !== 200) throw new Error(`the stream answered ${res.statusCode}`);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const after = /^: changes after (\d+)$/m.exec(block);
        if (after) from = Number(after[1]);
        if (/^event: change$/m.test(block)) {
          changes++;
          lastAt = Date.now();
        }
      }
    });
  });
  req.on('error', () => {});
  return {
    started: (): number | null => from,
    seen: (): { changes: number; lastAt: number } => ({ changes, lastAt }),
    close: (): void => void req.destroy(),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  await mkdir(work, { recursive: true });
  await build();
  const dir = path.join(work, `data-${entities}`);
  if (!existsSync(path.join(dir, 'cordata.zip'))) {
    log(`generating ${entities} entities in ${dir}`);
    await cli(generateArgs(entities, dir, 42), {});
  }
  const db = await database(`bench_feed_${entities}`);
  const pool = createPool(db.url, 4);
  await prepareDatabase(pool);
  await cli(['import', dir, '--json'], { DATABASE_URL: db.url });
  const { rows: days } = await pool.query<{ day: string }>(
    `SELECT max(substring(file_name FROM '^(\\d{8})c\\.txt$')) AS day FROM imports WHERE file_name ~ '^\\d{8}c\\.txt$'`,
  );
  const day = nextWorkday(days[0]!.day);
  // K entities spread over the registry (a sample of some three times as many), each renamed and moved: every record
  // a change of several fields.
  const share = Math.min(100, (300 * records) / entities);
  const { rows: picked } = await pool.query<Picked>(
    `SELECT document_number, name, status, entity_type, to_char(filing_date, 'MMDDYYYY') AS filed
     FROM registry.entities TABLESAMPLE SYSTEM ($2) REPEATABLE ($3) LIMIT $1`,
    [records, share, Number(day)],
  );
  const file = path.join(work, `feed-${entities}`, `${day}c.txt`);
  await mkdir(path.dirname(file), { recursive: true });
  const lines = picked.map((p) =>
    corporate({
      doc: p.document_number,
      name: `${p.name.slice(0, 180)} ${day}`,
      status: p.status,
      type: p.entity_type,
      ...(p.filed ? { fileDate: p.filed } : {}),
      street: `${Number(day) % 9000} FEED WAY`,
      city: 'OCALA',
      zip: '34470',
    }),
  );
  await writeFile(file, fileOf(lines));

  const { workspace, key } = await createWorkspace(pool, { plan: 'enterprise', name: 'feed' }, PEPPER, systemClock);
  await setPerMinute(pool, workspace.id, 10_000_000);
  const server = await benchServer(projectRoot, db.url, PEPPER, path.join(work, 'server-feed'));
  try {
    const stream = openStream(server.base, key.key);
    while (stream.started() === null) await sleep(50);
    const from = stream.started()!;
    const startedAt = Date.now();
    const started = performance.now();
    const imported = JSON.parse(await cli(['import', file, '--json'], { DATABASE_URL: db.url })) as unknown;
    const importEnd = Date.now();
    const importSeconds = Math.round(performance.now() - started) / 1000;
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM registry.changes WHERE sequence > $1',
      [from],
    );
    const written = rows[0]!.n;
    while (stream.seen().changes < written && Date.now() - importEnd < GIVE_UP_MS) await sleep(20);
    const seen = stream.seen();
    stream.close();
    // Negative when the last change arrived before the command returned (it vacuums and prewarms after its commits).
    const seenMs = seen.changes >= written ? seen.lastAt - importEnd : null;
    const out = {
      label: args.quick ? 'feed-quick' : `feed-${entities}`,
      machine: await machine(),
      entities,
      file: path.basename(file),
      records: lines.length,
      changes_written: written,
      changes_received: seen.changes,
      import_seconds: importSeconds,
      last_change_received_ms_after_import: seenMs,
      last_change_received_ms_after_import_start: seenMs === null ? null : seen.lastAt - startedAt,
      target_ms: TARGET_MS,
      import: imported,
    };
    const json = await writeResult(out.label, out);
    log(
      `${written} changes written by the import of ${lines.length} records (${importSeconds} s); ` +
        `${seen.changes} received, the last ${seenMs ?? '(never)'} ms after the import's end ` +
        `(${out.last_change_received_ms_after_import_start ?? '-'} ms after its start); results: ${json}`,
    );
    if (seenMs === null || seenMs > TARGET_MS) process.exitCode = 1;
  } finally {
    server.child.kill('SIGTERM');
    await pool.end();
    await db.stop();
  }
}

await main();
