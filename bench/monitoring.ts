// `npx tsx bench/monitoring.ts [--entities N] [--watches W] [--searches S] [--rounds R]`: what monitoring adds
// to a daily file's import (docs/webhooks.md, docs/benchmarks.md). Generates N entities and their daily
// files, imports the snapshot and all daily files but the last into one database, copies it (CREATE DATABASE
// ... TEMPLATE) and imports that last file into each copy: half without monitoring, half with W watched
// entities (among those the file touches and not) and S saved searches. Copies alternate, so the two sides
// share the machine's state. Prints the median of each side.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
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

const { values: args } = parseArgs({
  options: {
    entities: { type: 'string', default: '100000' },
    watches: { type: 'string', default: '1000' },
    searches: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
  },
});
const entities = Number(args.entities);
const watches = Number(args.watches);
const searches = Number(args.searches);
const rounds = Number(args.rounds);
/** The databases it creates (and drops) are named after this. */
const BASE = 'webhooks_bench';

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
    await generateDataset({ entities, outDir: files, seed: 7, days: 3, endDate: '2026-10-09' });
    const all = (await readdir(files)).sort();
    const dailies = all.filter((f) => /^\d{8}c\.txt$/.test(f));
    const last = dailies.at(-1)!;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${BASE} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
    const base = createPool(urlOf(BASE), 4);
    await prepareDatabase(base);
    await importFiles(
      base,
      all.filter((f) => f !== last).map((f) => path.join(files, f)),
    );
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
        // Half the watches among the last file's document numbers, half among the rest.
        await pool.query(
          `INSERT INTO watched_entities (workspace_id, document_number)
           SELECT $1, document_number FROM registry.entities ORDER BY id DESC LIMIT $2`,
          [workspace.id, watches],
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
      const summary = await importFiles(pool, [path.join(files, last)]);
      timings[side].push(summary.files[0]!.elapsed_ms);
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM monitoring_events');
      console.log(
        `${side} monitoring: ${last} in ${summary.files[0]!.elapsed_ms} ms (whole run ${Date.now() - started} ms), ` +
          `${summary.files[0]!.records_read} records, ${rows[0]!.n} events`,
      );
      await pool.end();
      await admin.query(`DROP DATABASE ${name}`);
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const a = median(timings.without);
    const b = median(timings.with);
    console.log(
      `${loaded[0]!.n} entities; daily file ${last}: median ${a} ms without, ${b} ms with ${watches} watches ` +
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
