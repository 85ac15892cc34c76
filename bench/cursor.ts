// `npm run bench:cursor -- [--entities N] [--quick] [--repeats R]`
// `npm run bench:cursor -- --exports-only [--entities N] [--formats csv,parquet] [--database NAME]
//   [--node-options FLAGS]`
// Cursors (docs/contract.md, "Cursors") on a generated registry of N entities, through HTTP against the compiled
// server: for each listing, the first page against pages deep in a cursor walk (at half, nine tenths and the end of
// the listing, and page 10,000 where the listing is that long), each asked R times; the same listings at the
// deepest offset the contract takes (10,000), the old way to read deep; a whole walk of the largest city by cursor;
// and the deep pages of walks pinned to the version before the last daily file, which read the rows that file
// replaced from the history. Cursors deep in a walk are made as the server makes them (its pepper, the keys of the
// row before the page). Then every entity exported as CSV and as Parquet by the server's own worker: seconds, rows a
// second, the file's size and the server's peak memory; then each again on a server started for it alone, beside a
// concurrent search load timed before and during it (bench/cursor-exports.ts). Writes bench/results/cursor-<label>.json
// (`--exports-only`: only the exports on servers of their own, into cursor-exports-<label>.json, from `--database`
// when another bench loaded the same files, on servers started as `npm start` starts them or, with `--node-options`,
// with those Node options instead: `--node-options ""` for none, V8's own heap sizing).
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { CursorCodec } from '../src/api/cursor.js';
import { OPERATIONS } from '../src/api/operations/index.js';
import { systemClock } from '../src/clock.js';
import { projectRoot } from '../src/config/paths.js';
import { createPool } from '../src/db/pool.js';
import { prepareDatabase } from '../src/main/database.js';
import { datasetVersions, entitiesAt, type Versions } from '../src/search/pinned.js';
import { Sql } from '../src/search/sql.js';
import { percentiles, type Percentiles } from './report.js';
import { exportAll, exportsBesideLoad, type ExportFormat } from './cursor-exports.js';
import { build, cli, database, generateArgs, log, machine, serverNodeOptions, work, writeResult } from './setup.js';
import { benchServer } from '../test/support/server-process.js';

const { values: args } = parseArgs({
  options: {
    entities: { type: 'string', default: '100000' },
    quick: { type: 'boolean', default: false },
    repeats: { type: 'string', default: '30' },
    'exports-only': { type: 'boolean', default: false },
    // With --exports-only: the formats, the database of the same files to read (another bench's), the server's flags.
    formats: { type: 'string', default: 'csv,parquet' },
    database: { type: 'string' },
    'node-options': { type: 'string' },
  },
});
const entities = args.quick ? 20_000 : Number(args.entities);
const repeats = Number(args.repeats);
const PEPPER = 'bench-pepper';
/** Rows a page: the entity search's maximum, what a client reading a whole listing asks. */
const LIMIT = 500;
/** The page the target names (page 10,000 of a 12.6-million-row listing, docs/benchmarks.md). */
const TARGET_PAGE = 10_000;
/** The deepest offset the contract takes. */
const OFFSET_MAX = 10_000;

interface Listing {
  label: string;
  /** The operation and its query as a client sends it. */
  op: string;
  path: string;
  query: Record<string, string>;
  /** The listing's order and predicate over `registry.entities e`, to find the keys of a deep row. */
  order: string;
  keys: string;
  where: string;
}

const listings = (city: string): Listing[] => [
  {
    label: 'all entities, newest first',
    op: 'searchEntities',
    path: '/v1/entities/search',
    query: {},
    order: 'e.filing_date DESC NULLS LAST, e.document_number',
    keys: 'e.filing_date::text AS k0, e.document_number AS k1',
    where: 'true',
  },
  {
    label: 'all entities by name',
    op: 'searchEntities',
    path: '/v1/entities/search',
    query: { sort: 'name_asc' },
    order: 'e.name_norm, e.document_number',
    keys: 'e.name_norm AS k0, e.document_number AS k1',
    where: 'true',
  },
  {
    label: `${city}, newest first`,
    op: 'searchEntities',
    path: '/v1/entities/search',
    query: { principal_city: city },
    order: 'e.filing_date DESC NULLS LAST, e.document_number',
    keys: 'e.filing_date::text AS k0, e.document_number AS k1',
    where: `upper(e.principal_city) = '${city.replaceAll("'", "''")}'`,
  },
  {
    label: `${city} by name`,
    op: 'searchEntities',
    path: '/v1/entities/search',
    query: { principal_city: city, sort: 'name_asc' },
    order: 'e.name_norm, e.document_number',
    keys: 'e.name_norm AS k0, e.document_number AS k1',
    where: `upper(e.principal_city) = '${city.replaceAll("'", "''")}'`,
  },
];

function url(base: string, l: Listing, extra: Record<string, string | number>): string {
  const extras = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)]));
  return `${base}${l.path}?${new URLSearchParams({ ...l.query, limit: String(LIMIT), ...extras })}`;
}

async function timed(
  u: string,
  key: string,
): Promise<{ ms: number; body: { pagination: { total: number; next_cursor: string | null }; data: unknown[] } }> {
  const started = performance.now();
  const res = await fetch(u, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as never;
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${u}: ${res.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

async function repeated(u: string, key: string): Promise<Percentiles> {
  const ms: number[] = [];
  for (let i = 0; i < repeats; i++) ms.push((await timed(u, key)).ms);
  return percentiles(ms);
}

/** The total of a walk pinned to `version`, and cursors of its deep pages (`depths`), as the server issues them. */
async function deepCursors(
  pool: pg.Pool,
  codec: CursorCodec,
  l: Listing,
  at: { version: number; now: Versions },
): Promise<{ total: number; cursors: Array<{ pos: number; cursor: string }> }> {
  const op = OPERATIONS.find((o) => o.name === l.op)!;
  const params = op.params.parse({ ...l.query, limit: String(LIMIT) }) as Record<string, unknown>;
  const sql = new Sql();
  const entities = entitiesAt(sql, at.version, at.now);
  const counted = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${entities} WHERE ${l.where}`,
    sql.params,
  );
  const total = counted.rows[0]!.n;
  const cursors = [];
  for (const pos of depths(total)) {
    const { rows } = await pool.query<{ k0: string | null; k1: string }>(
      `SELECT ${l.keys} FROM ${entities} WHERE ${l.where} ORDER BY ${l.order} OFFSET ${pos - 1} LIMIT 1`,
      sql.params,
    );
    const state = { pos, total, version: at.version, after: [rows[0]!.k0, rows[0]!.k1], scope: null };
    cursors.push({ pos, cursor: codec.encode(l.op, params, state) });
  }
  return { total, cursors };
}

/** The pages of a listing to read deep: half, nine tenths, the last, and the target's page where there is one. */
function depths(total: number): number[] {
  const page = (share: number): number => Math.floor((total * share) / LIMIT) * LIMIT;
  const out = new Set([page(0.5), page(0.9), Math.floor((total - 1) / LIMIT) * LIMIT]);
  if (total > TARGET_PAGE * LIMIT) out.add((TARGET_PAGE - 1) * LIMIT);
  return [...out].filter((p) => p > 0).sort((a, b) => a - b);
}

/** Each listing's first page and deep pages, pinned to `version`, R times each. */
async function measure(
  base: string,
  key: string,
  pool: pg.Pool,
  codec: CursorCodec,
  ls: Listing[],
  at: { version: number; now: Versions },
) {
  const out = [];
  for (const l of ls) {
    const { total, cursors } = await deepCursors(pool, codec, l, at);
    const firstPage = await repeated(url(base, l, {}), key);
    const deep = [];
    for (const c of cursors)
      deep.push({ page: c.pos / LIMIT + 1, ...(await repeated(url(base, l, { cursor: c.cursor }), key)) });
    const offset = total > OFFSET_MAX ? await repeated(url(base, l, { offset: OFFSET_MAX }), key) : null;
    const worst = Math.max(...deep.map((d) => d.p95));
    out.push({
      listing: l.label,
      total,
      first_page: firstPage,
      deep,
      offset_10000: offset,
      deep_p95_over_first: Math.round((worst / firstPage.p95) * 100) / 100,
    });
    log(`${l.label} at version ${at.version}: ${JSON.stringify(out.at(-1))}`);
  }
  return out;
}

/** Writes bench/results/<label>.json: the machine, the run's settings and `figures`. */
async function report(figures: { label: string } & Record<string, unknown>): Promise<void> {
  const { label, ...rest } = figures;
  const out = { label, machine: await machine(), entities, limit: LIMIT, repeats, ...rest };
  log(`results: ${await writeResult(label, out)}`);
}

async function main(): Promise<void> {
  await mkdir(work, { recursive: true });
  await build();
  const dir = path.join(work, `data-${entities}`);
  if (!existsSync(path.join(dir, 'cordata.zip'))) {
    log(`generating ${entities} entities in ${dir}`);
    await cli(generateArgs(entities, dir, 42), {});
  }
  const files = (await readdir(dir)).sort().filter((f) => f !== 'match-rows.csv');
  const lastDaily = files.filter((f) => /^\d{8}c\.txt$/.test(f)).at(-1)!;
  const db = await database(args.database ?? `bench_cursor_${entities}`);
  const pool = createPool(db.url, 4);
  await prepareDatabase(pool);
  // The last daily file on its own, so its replaced rows are the history a walk pinned before it reads.
  await cli(['import', ...files.filter((f) => f !== lastDaily).map((f) => path.join(dir, f)), '--json'], {
    DATABASE_URL: db.url,
  });
  await cli(['import', path.join(dir, lastDaily), '--json'], { DATABASE_URL: db.url });
  const { workspace, key } = await createWorkspace(pool, { plan: 'enterprise', name: 'cursor' }, PEPPER, systemClock);
  await setPerMinute(pool, workspace.id, 10_000_000);
  if (args['exports-only']) {
    try {
      const formats = args.formats.split(',') as ExportFormat[];
      const nodeOptions = args['node-options'];
      const beside = await exportsBesideLoad(pool, db, PEPPER, key.key, formats, nodeOptions);
      const { options, suffix } = serverNodeOptions(nodeOptions);
      const label = `cursor-exports-${entities}${suffix}`;
      const figures = { server_node_options: options, database: args.database ?? null };
      await report({ label, ...figures, exports_beside_load: beside });
    } finally {
      await pool.end();
      await db.stop();
    }
    return;
  }
  const now = await datasetVersions(pool);
  const { rows: last } = await pool.query<{ file_name: string }>(
    'SELECT file_name FROM imports ORDER BY finished_at DESC LIMIT 1',
  );
  if (last[0]?.file_name !== lastDaily) throw new Error(`the last import is not ${lastDaily}: bench on a new database`);
  const before = now.version - 1;
  if (before < now.pinnedFrom) throw new Error(`version ${before} is no longer kept: bench on a new database`);
  const { rows: top } = await pool.query<{ city: string }>(
    `SELECT upper(principal_city) AS city FROM registry.entities WHERE principal_city IS NOT NULL
     GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
  );
  const city = top[0]!.city;
  const server = await benchServer(projectRoot, db.url, PEPPER, path.join(work, 'server'));
  const codec = new CursorCodec(PEPPER);
  try {
    const live = await measure(server.base, key.key, pool, codec, listings(city), { version: now.version, now });
    const pinned = await measure(server.base, key.key, pool, codec, listings(city), { version: before, now });

    // A whole walk of the largest city by cursor: every row once.
    const cityListing = listings(city)[2]!;
    const started = performance.now();
    const seen = new Set<string>();
    let rows = 0;
    let cursor: string | null = null;
    const pageMs: number[] = [];
    do {
      const page = await timed(url(server.base, cityListing, cursor ? { cursor } : {}), key.key);
      pageMs.push(page.ms);
      for (const r of page.body.data as Array<{ document_number: string }>) seen.add(r.document_number);
      rows += page.body.data.length;
      cursor = page.body.pagination.next_cursor;
    } while (cursor);
    const seconds = Math.round(performance.now() - started) / 1000;
    const walk = { city, rows, distinct: seen.size, pages: pageMs.length, seconds, page: percentiles(pageMs) };
    log(`walk of ${city}: ${JSON.stringify(walk)}`);

    const exports = [];
    for (const format of ['csv', 'parquet'] as const) {
      exports.push(await exportAll(server.base, key.key, server.child.pid!, format));
      log(`export of every entity: ${JSON.stringify(exports.at(-1))}`);
    }
    server.child.kill('SIGTERM');
    const beside = await exportsBesideLoad(pool, db, PEPPER, key.key, ['csv', 'parquet']);

    const { rows: hist } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM registry.entity_history');
    await report({
      label: args.quick ? 'cursor-quick' : `cursor-${entities}`,
      live: { version: now.version, listings: live },
      pinned: { version: before, history_rows: hist[0]!.n, after_file: lastDaily, listings: pinned },
      walk,
      exports,
      exports_beside_load: beside,
    });
  } finally {
    server.child.kill('SIGTERM');
    await pool.end();
    await db.stop();
  }
}

await main();
