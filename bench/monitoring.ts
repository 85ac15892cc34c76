// What monitoring adds to an import (docs/webhooks.md, docs/benchmarks.md). Three ways:
//
// `npx tsx bench/monitoring.ts [--entities N] [--watches W] [--searches S] [--rounds R]`: generates N
// entities and three days of daily files, imports all but the last file into one database, copies it
// (CREATE DATABASE ... TEMPLATE) and imports that last file into each copy, alternately without monitoring
// and with it. PostgreSQL at BENCH_ADMIN_URL (its maintenance database), by default the local one.
//
// `npx tsx bench/monitoring.ts --database URL [--watches W] [--searches S] [--paired] FILE...`: imports the
// daily files into a loaded database (the full-scale benchmark's), a day's files without monitoring, the
// next day's with; `--paired` first imports each file rolled back, once to warm it, then without and with
// monitoring (the order alternating by day), before it is applied (see intoDatabase).
//
// `npx tsx bench/monitoring.ts --quarterly [--entities N] ...`: as the first, but with a quarter of daily
// files, and what each copy imports is the next quarter's snapshot (bench/quarter.ts: the first with those
// files applied) onto the first snapshot alone; half the watches are among the entities the quarter changed.
//
// "With" is W watched entities (the newest) and S saved searches, all different, of five shapes a customer
// keeps. The figure that counts is what a file takes longer with monitoring than without: cold (each file
// once, as it is applied: alternate days or copies, per record) and, with `--paired`, warm (the same file
// both ways). Monitoring's own time (the importer's `monitoring_ms`) is reported beside it, never instead.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { prepareDatabase } from '../src/main/database.js';
import { createPool } from '../src/db/pool.js';
import { generateDataset } from '../src/sample/index.js';
import { importRegistry } from '../src/main/importer.js';
import { nextQuarter } from './quarter.js';

const { values: args, positionals: files } = parseArgs({
  options: {
    entities: { type: 'string', default: '100000' },
    watches: { type: 'string', default: '1000' },
    searches: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    database: { type: 'string' },
    paired: { type: 'boolean', default: false },
    quarterly: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const watches = Number(args.watches);
const searches = Number(args.searches);
/** The databases the copying mode creates (and drops) are named after this. */
const BASE = 'webhooks_bench';
/** Workdays of daily files in a quarter, between one snapshot and the next (--quarterly). */
const QUARTER_WORKDAYS = 63;
/** The document numbers the quarter changed (--quarterly), half the watches' first. */
let changed: string[] = [];

const WORDS = ['holdings', 'consulting', 'properties', 'group', 'services', 'investments', 'capital', 'solutions'];
const CITIES = ['MIAMI', 'ORLANDO', 'TAMPA', 'JACKSONVILLE', 'HIALEAH', 'NAPLES', 'SARASOTA', 'GAINESVILLE'];
const SURNAMES = ['smith', 'garcia', 'johnson', 'rodriguez', 'martinez', 'hernandez', 'lopez', 'williams'];
const AGENTS = ['registered agents', 'corporation service', 'northwest registered', 'incorp services'];

/** The i-th saved search: a name, a city and type, new LLCs of a city, an agent, an officer; each since a date. */
function savedSearch(i: number): Record<string, unknown> {
  const k = Math.floor(i / 5);
  const since = `${2000 + (k % 25)}-0${(k % 9) + 1}-01`;
  switch (i % 5) {
    case 0:
      return { name: WORDS[k % WORDS.length], filed_after: since };
    case 1:
      return { principal_city: CITIES[k % CITIES.length], entity_type: [k % 2 ? 'FLAL' : 'DOMP'], filed_after: since };
    case 2:
      return {
        status: ['active'],
        entity_type: ['FLAL'],
        principal_city: CITIES[k % CITIES.length],
        filed_after: since,
      };
    case 3:
      return { ra_name: AGENTS[k % AGENTS.length], filed_after: since };
    default:
      return { officer_name: SURNAMES[k % SURNAMES.length], filed_after: since };
  }
}

/** Turns monitoring on (a workspace's watches and saved searches) or off (none) in a database. */
async function monitoring(pool: pg.Pool, on: boolean): Promise<void> {
  await pool.query('DELETE FROM watched_entities');
  await pool.query('DELETE FROM saved_searches');
  if (!on) return;
  const { workspace } = await createWorkspace(pool, { plan: 'enterprise' }, 'bench', systemClock);
  await pool.query(
    `INSERT INTO watched_entities (workspace_id, document_number)
     SELECT $1, document_number FROM registry.entities WHERE document_number = ANY($3::text[])
     UNION
     (SELECT $1, document_number FROM registry.entities ORDER BY id DESC LIMIT $2 - cardinality($3::text[]))`,
    [workspace.id, watches, changed.slice(0, watches / 2)],
  );
  for (let i = 0; i < searches; i++) {
    await pool.query(`INSERT INTO saved_searches (id, workspace_id, name, params) VALUES ($1, $2, $3, $4)`, [
      `ss_${i}`,
      workspace.id,
      `search ${i}`,
      JSON.stringify(savedSearch(i)),
    ]);
  }
}

interface Timing {
  side: 'without' | 'with';
  file: string;
  records: number;
  ms: number;
  monitoringMs: number;
}

/**
 * Imports one file with monitoring on or off and prints its figures (and a snapshot's monitoring steps);
 * through `dry` (rollingBack) when given: the file then leaves the database as it was.
 */
async function timeImport(pool: pg.Pool, file: string, on: boolean, dry?: pg.Pool): Promise<Timing> {
  await monitoring(pool, on);
  const steps: string[] = [];
  const f = (await importRegistry(dry ?? pool, [file], { log: (l) => steps.push(l) })).files[0]!;
  const t: Timing = {
    side: on ? 'with' : 'without',
    file: path.basename(file),
    records: f.records_read,
    ms: f.elapsed_ms,
    monitoringMs: f.monitoring_ms,
  };
  const share = on ? ` (monitoring ${t.monitoringMs} ms, ${((t.monitoringMs / t.ms) * 100).toFixed(1)}%)` : '';
  const judged = on && f.entities_judged ? `, ${f.entities_judged} judged` : '';
  console.log(
    `${dry ? 'rolled back, ' : ''}${t.side} monitoring: ${t.file}, ${t.records} records, ${t.ms} ms, ` +
      `${f.events_written} events${judged}${share}`,
  );
  for (const l of steps) if (l.includes(': monitoring ')) console.log(`  ${l}`);
  return t;
}

/** A corporate file: a day's or a snapshot's (events files are another kind of work, summed apart). */
const isCorporate = (t: Timing): boolean => /^(\d{8}c\.txt|cordata\.zip)$/.test(t.file);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A share as a percentage; `none` for the median of no files. */
const percent = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : 'none');

const heading = (entities: number): string =>
  `${entities} entities, ${watches} watches, ${searches} saved searches; ${os.cpus().length} cores, ` +
  `${os.cpus()[0]?.model}`;

/**
 * What a file took longer with monitoring, cold: the median time a record of the files imported with it
 * over that of the files imported without (alternate days, or copies of one database), corporate and events
 * files apart. Beside it, monitoring's own time over the rest of each file it ran in.
 */
function summary(timings: Timing[], entities: number): void {
  const side = (s: Timing['side'], corporate: boolean) =>
    timings.filter((t) => t.side === s && isCorporate(t) === corporate);
  const perRecord = (ts: Timing[]) => median(ts.map((t) => t.ms / t.records));
  const longer = (corporate: boolean): number =>
    perRecord(side('with', corporate)) / perRecord(side('without', corporate)) - 1;
  const a = perRecord(side('without', true));
  const b = perRecord(side('with', true));
  const own = (ts: Timing[]) => ts.map((t) => t.monitoringMs / (t.ms - t.monitoringMs));
  console.log(
    `${heading(entities)}\n` +
      `  a corporate file took ${percent(longer(true))} longer with monitoring, cold (median ${a.toFixed(3)} ms ` +
      `a record without, ${b.toFixed(3)} with); an events file ${percent(longer(false))}\n` +
      `  beside it, monitoring's own time: a median ${percent(median(own(side('with', true))))} of the rest of a ` +
      `corporate file (max ${percent(Math.max(...own(side('with', true))))}), ` +
      `${percent(median(own(side('with', false))))} of an events file`,
  );
}

const entityCount = async (pool: pg.Pool): Promise<number> =>
  (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.entities')).rows[0]!.n;

/**
 * A pool whose transactions roll back where they would commit: a file imported through it is applied,
 * judged and timed on the real data, and leaves the database as it was (nor is it recorded as imported).
 */
function rollingBack(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (prop !== 'connect') return typeof value === 'function' ? value.bind(target) : value;
      return async () => {
        const client = await target.connect();
        const { query, release } = client;
        client.query = ((text: unknown, ...rest: unknown[]) =>
          (query as (...a: unknown[]) => unknown).call(
            client,
            text === 'COMMIT' ? 'ROLLBACK' : text,
            ...rest,
          )) as typeof client.query;
        client.release = (err) => {
          Object.assign(client, { query, release });
          return release.call(client, err);
        };
        return client;
      };
    },
  });
}

/** Each daily file's pair of rolled-back imports, and how much longer it took with monitoring. */
function pairedSummary(pairs: Array<{ without: Timing; with: Timing; withFirst: boolean }>): void {
  const corporate = pairs.filter((p) => isCorporate(p.without));
  const longer = (ps: typeof pairs) => ps.map((p) => p.with.ms / p.without.ms - 1);
  const order = (first: boolean) => longer(corporate.filter((p) => p.withFirst === first));
  const own = corporate.map((p) => p.with.monitoringMs / (p.with.ms - p.with.monitoringMs));
  console.log(
    `  paired (each file rolled back without and with monitoring, once warm): a corporate file took a median ` +
      `${percent(median(longer(corporate)))} longer with it (max ${percent(Math.max(...longer(corporate)))}; ` +
      `${percent(median(order(true)))} with it imported first, ${percent(median(order(false)))} second); ` +
      `an events file ${percent(median(longer(pairs.filter((p) => !corporate.includes(p)))))}; beside it, ` +
      `monitoring's own time a median ${percent(median(own))} of the rest of a corporate file`,
  );
}

/**
 * The daily files into a loaded database, alternately without and with monitoring. With `--paired`, each
 * file is first imported rolled back (rollingBack) once to read its pages in, then twice more, without and
 * with monitoring, the one imported first alternating by day, before it is applied.
 */
async function intoDatabase(url: string): Promise<void> {
  const pool = createPool(url, 4);
  const dry = rollingBack(pool);
  try {
    // A day's corporate and events files on the same side, days alternating.
    const days = [...new Set(files.map((f) => path.basename(f).slice(0, 8)))];
    const dayOf = (f: string): number => days.indexOf(path.basename(f).slice(0, 8));
    const timings: Timing[] = [];
    const pairs: Array<{ without: Timing; with: Timing; withFirst: boolean }> = [];
    for (const file of files) {
      const odd = dayOf(file) % 2 === 1;
      if (args.paired) {
        // Unmeasured: the file's pages are cold only for the first import of it.
        await timeImport(pool, file, false, dry);
        const first = await timeImport(pool, file, odd, dry);
        const second = await timeImport(pool, file, !odd, dry);
        pairs.push(
          odd ? { with: first, without: second, withFirst: true } : { with: second, without: first, withFirst: false },
        );
      }
      timings.push(await timeImport(pool, file, odd));
    }
    await monitoring(pool, false);
    const entities = await entityCount(pool);
    summary(timings, entities);
    if (args.paired) pairedSummary(pairs);
  } finally {
    await pool.end();
  }
}

/** The last daily file into copies of one database, alternately without and with monitoring. */
async function intoCopies(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'rl-bench-monitoring-'));
  const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const urlOf = (db: string): string => adminUrl.replace(/\/[^/]*$/, `/${db}`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const dir = path.join(work, 'files');
    const days = args.quarterly ? QUARTER_WORKDAYS : 3;
    await generateDataset({ entities: Number(args.entities), outDir: dir, seed: 7, days, endDate: '2026-10-09' });
    const all = (await readdir(dir)).sort();
    const last = all.filter((f) => /^\d{8}c\.txt$/.test(f)).at(-1)!;
    // What the base database holds, and the files each copy imports.
    let baseFiles = all.filter((f) => f !== last).map((f) => path.join(dir, f));
    let measured = [path.join(dir, last)];
    if (args.quarterly) {
      const next = path.join(work, 'next');
      await mkdir(next);
      const daily = all.filter((f) => /^\d{8}ce?\.txt$/.test(f)).map((f) => path.join(dir, f));
      const date = `${last.slice(0, 4)}-${last.slice(4, 6)}-${last.slice(6, 8)}`;
      baseFiles = [path.join(dir, 'cordata.zip'), path.join(dir, 'corevent.zip')];
      measured = [path.join(next, 'cordata.zip'), path.join(next, 'corevent.zip')];
      changed = [...(await nextQuarter(baseFiles[0]!, daily, 'cordata0.txt', measured[0]!, date))];
      await nextQuarter(baseFiles[1]!, daily, 'corevent0.txt', measured[1]!, date);
    }
    await admin.query(`CREATE DATABASE ${BASE} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
    const base = createPool(urlOf(BASE), 4);
    await prepareDatabase(base);
    await importRegistry(base, baseFiles);
    const entities = await entityCount(base);
    await base.end();
    const timings: Timing[] = [];
    for (let r = 0; r < Number(args.rounds) * 2; r++) {
      const name = `${BASE}_${r}`;
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${BASE}`);
      const pool = createPool(urlOf(name), 4);
      for (const file of measured) timings.push(await timeImport(pool, file, r % 2 === 1));
      await pool.end();
      await admin.query(`DROP DATABASE ${name}`);
    }
    summary(timings, entities);
    await admin.query(`DROP DATABASE ${BASE}`);
  } finally {
    await admin.end();
    await rm(work, { recursive: true, force: true });
  }
}

await (args.database ? intoDatabase(args.database) : intoCopies());
