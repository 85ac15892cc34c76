// `npx tsx bench/monitoring.ts [--entities N] [--watches W] [--searches S] [--rounds R] [--quarterly]`: what
// monitoring adds to a daily file's import (docs/webhooks.md, docs/benchmarks.md). Generates N entities and their daily
// files, imports the snapshot and all daily files but the last into one database, copies it (CREATE DATABASE
// ... TEMPLATE) and imports that last file into each copy: half without monitoring, half with W watched
// entities (among those the file touches and not) and S saved searches. Copies alternate, so the two sides
// share the machine's state. Prints the median of each side. With --quarterly, the file imported into each
// copy is the next quarter's snapshot (bench/quarter.ts: the first with a quarter of daily files applied),
// onto the first snapshot alone; half the watches are among the entities the quarter changed.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createWorkspace } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { prepareDatabase } from '../src/db/index.js';
import { createPool } from '../src/db/pool.js';
import { generateDataset } from '../src/registry/generator/index.js';
import { importFiles } from '../src/registry/import/index.js';
import { nextQuarter } from './quarter.js';

const { values: args } = parseArgs({
  options: {
    entities: { type: 'string', default: '100000' },
    watches: { type: 'string', default: '1000' },
    searches: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    quarterly: { type: 'boolean', default: false },
  },
});
const entities = Number(args.entities);
const watches = Number(args.watches);
const searches = Number(args.searches);
const rounds = Number(args.rounds);
/** The databases it creates (and drops) are named after this. */
const BASE = 'webhooks_bench';
/** Workdays of daily files in a quarter, between one snapshot and the next (--quarterly). */
const QUARTER_WORKDAYS = 63;

/** Saved searches of the kinds a customer keeps: a name, a city and type, an agent, an officer. */
const SEARCH_SHAPES = [
  (i: number) => ({ name: ['holdings', 'consulting', 'properties', 'group', 'services'][i % 5]! }),
  (i: number) => ({ principal_city: ['MIAMI', 'ORLANDO', 'TAMPA', 'JACKSONVILLE'][i % 4]!, entity_type: ['FLAL'] }),
  (i: number) => ({ status: ['active'], filed_after: `2026-0${(i % 9) + 1}-01` }),
  (i: number) => ({ ra_name: ['registered agents', 'corporation service'][i % 2]! }),
  (i: number) => ({ officer_name: ['smith', 'garcia', 'johnson'][i % 3]! }),
];

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'rl-bench-monitoring-'));
  // A PostgreSQL server: BENCH_ADMIN_URL (its maintenance database), by default the local one.
  const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const urlOf = (db: string): string => adminUrl.replace(/\/[^/]*$/, `/${db}`);
  try {
    const files = path.join(work, 'files');
    const days = args.quarterly ? QUARTER_WORKDAYS : 3;
    await generateDataset({ entities, outDir: files, seed: 7, days, endDate: '2026-10-09' });
    const all = (await readdir(files)).sort();
    const dailies = all.filter((f) => /^\d{8}c\.txt$/.test(f));
    const last = dailies.at(-1)!;
    // The files imported into the base, those measured, and the document numbers watched first.
    let baseFiles = all.filter((f) => f !== last).map((f) => path.join(files, f));
    let measured = [path.join(files, last)];
    let changed: string[] = [];
    if (args.quarterly) {
      const next = path.join(work, 'next');
      await mkdir(next);
      const daily = all.filter((f) => /^\d{8}ce?\.txt$/.test(f)).map((f) => path.join(files, f));
      const date = `${last.slice(0, 4)}-${last.slice(4, 6)}-${last.slice(6, 8)}`;
      measured = [path.join(next, 'cordata.zip'), path.join(next, 'corevent.zip')];
      const docs = await nextQuarter(path.join(files, 'cordata.zip'), daily, 'cordata0.txt', measured[0]!, date);
      await nextQuarter(path.join(files, 'corevent.zip'), daily, 'corevent0.txt', measured[1]!, date);
      baseFiles = [path.join(files, 'cordata.zip'), path.join(files, 'corevent.zip')];
      changed = [...docs].slice(0, watches / 2);
    }
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${BASE} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
    const base = createPool(urlOf(BASE), 4);
    await prepareDatabase(base);
    await importFiles(base, baseFiles);
    const { rows: loaded } = await base.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.entities');
    await base.end();

    const timings: Record<'without' | 'with', number[]> = { without: [], with: [] };
    for (let r = 0; r < rounds * 2; r++) {
      const side = r % 2 === 0 ? 'without' : 'with';
      const name = `${BASE}_${r}`;
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${BASE}`);
      const pool = createPool(urlOf(name), 4);
      if (side === 'with') {
        const { workspace } = await createWorkspace(pool, { plan: 'enterprise' }, 'bench', systemClock);
        // Half the watches among the last file's document numbers (or the quarter's changes), half among
        // the rest.
        await pool.query(
          `INSERT INTO watched_entities (workspace_id, document_number)
           SELECT $1, document_number FROM registry.entities WHERE document_number = ANY($3::text[])
           UNION
           (SELECT $1, document_number FROM registry.entities ORDER BY id DESC LIMIT $2 - cardinality($3::text[]))`,
          [workspace.id, watches, changed],
        );
        for (let i = 0; i < searches; i++) {
          await pool.query(`INSERT INTO saved_searches (id, workspace_id, name, params) VALUES ($1, $2, $3, $4)`, [
            `ss_${i}`,
            workspace.id,
            `search ${i}`,
            JSON.stringify(SEARCH_SHAPES[i % SEARCH_SHAPES.length]!(i)),
          ]);
        }
      }
      const started = Date.now();
      const steps: string[] = [];
      const summary = await importFiles(pool, measured, { log: (l) => steps.push(l) });
      timings[side].push(summary.files[0]!.elapsed_ms);
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_events');
      const each = summary.files.map((f) => `${path.basename(f.file)} in ${f.elapsed_ms} ms`).join(', ');
      console.log(
        `${side} monitoring: ${each} ` +
          `(whole run ${Date.now() - started} ms), ${summary.files[0]!.records_read} records, ${rows[0]!.n} events`,
      );
      for (const l of steps) if (/monitoring/.test(l)) console.log(`  ${l}`);
      await pool.end();
      await admin.query(`DROP DATABASE ${name}`);
    }
    const measuredName = args.quarterly ? 'next snapshot cordata.zip' : `daily file ${last}`;
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const a = median(timings.without);
    const b = median(timings.with);
    console.log(
      `${loaded[0]!.n} entities; ${measuredName}: median ${a} ms without, ${b} ms with ${watches} watches ` +
        `and ${searches} saved searches (${(((b - a) / a) * 100).toFixed(1)}%); ` +
        `${os.cpus().length} cores, ${os.cpus()[0]?.model}`,
    );
    await admin.query(`DROP DATABASE ${BASE}`);
    await admin.end();
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
