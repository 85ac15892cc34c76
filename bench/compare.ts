// `npx tsx bench/compare.ts --other DIR [--rounds R] [--queries K] [--database URL] [--other-database NAME]`
// The entity-name mix's latency, and entity details' beside it (not in the mix's figures), this build against
// another build (DIR: a worktree with its own dist/),
// both servers on one database at once, each request sent to one then the other in alternating order,
// one at a time: noise from the machine falls on both alike. Prints p50/p95/p99 of each and their
// ratios. The database: URL's (loaded by `registry import`), else the quick bench's (`npm run bench --
// --quick` loads it). With --other-database, the other build serves a database of that name on the same server,
// migrated and loaded by its own code from the same files (an older build's schema, its writes as they were then).
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { projectRoot } from '../src/config/paths.js';
import { startEmbedded } from '../src/db/embedded.js';
import { createPool } from '../src/db/pool.js';
import { drawMix } from './mix.js';
import { ENTITY_NAME_KINDS, percentiles } from './report.js';
import { benchServer } from '../test/support/server-process.js';

const { values: args } = parseArgs({
  options: {
    other: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    queries: { type: 'string', default: '40' },
    database: { type: 'string' },
    'other-database': { type: 'string' },
  },
});
if (!args.other) throw new Error('--other DIR is required');
const PEPPER = 'bench-compare-pepper';

const serve = (root: string, url: string) => benchServer(root, url, PEPPER, path.join(root, 'bench', 'work', 'server'));

const server = args.database ? null : await startEmbedded(path.join(projectRoot, 'bench', 'work'), { name: 'pg' });
const url = new URL(args.database ?? server!.adminUrl);
if (!args.database) url.pathname = '/bench_100000';
const pool = createPool(url.toString(), 2);
/** A workspace of unlimited rate on `db`, made by the code of the build that serves it (its schema's). */
async function benchKey(db: ReturnType<typeof createPool>, root: string): Promise<string> {
  const accounts = (
    root === projectRoot
      ? { createWorkspace, setPerMinute }
      : await import(path.join(path.resolve(root), 'dist', 'accounts', 'workspaces.js'))
  ) as { createWorkspace: typeof createWorkspace; setPerMinute: typeof setPerMinute };
  const { workspace, key } = await accounts.createWorkspace(
    db,
    { plan: 'enterprise', name: 'compare' },
    PEPPER,
    systemClock,
  );
  await accounts.setPerMinute(db, workspace.id, 10_000_000);
  return key.key;
}
const otherUrl = new URL(url);
if (args['other-database']) otherUrl.pathname = `/${args['other-database']}`;
const otherPool = args['other-database'] ? createPool(otherUrl.toString(), 2) : pool;
const keys = { ours: await benchKey(pool, projectRoot), theirs: await benchKey(otherPool, args.other) };
const mix = (await drawMix(pool, 7, Number(args.queries))).filter((m) => ENTITY_NAME_KINDS.includes(m.kind));
// Entity details through the full gate: the same documents every run (their hash, not a random draw).
const { rows: documents } = await pool.query<{ document_number: string }>(
  `SELECT document_number FROM registry.entities ORDER BY md5(document_number) LIMIT $1`,
  [Number(args.queries)],
);
const details = documents.map((d) => ({ kind: 'entity_detail', path: `/entities/${d.document_number}` }));
// Theirs first: an older build refuses a database migrated past what it knows, and ours may migrate it.
const theirs = await serve(path.resolve(args.other), otherUrl.toString());
const ours = await serve(projectRoot, url.toString());
const times: Record<'ours' | 'theirs', number[]> = { ours: [], theirs: [] };
const byKind = new Map<string, Record<'ours' | 'theirs', number[]>>();
const time = async (side: 'ours' | 'theirs', p: string): Promise<number> => {
  const base = side === 'ours' ? ours.base : theirs.base;
  const t0 = performance.now();
  const res = await fetch(`${base}/v1${p}`, { headers: { authorization: `Bearer ${keys[side]}` } });
  await res.arrayBuffer();
  return performance.now() - t0;
};
try {
  // A first round unmeasured: both servers' caches and prepared statements warm alike.
  for (const m of [...mix, ...details]) await Promise.all([time('ours', m.path), time('theirs', m.path)]);
  for (let r = 0; r < Number(args.rounds); r++)
    for (const [i, m] of [...mix, ...details].entries()) {
      const order = (i + r) % 2 === 0 ? (['ours', 'theirs'] as const) : (['theirs', 'ours'] as const);
      for (const side of order) {
        const ms = await time(side, m.path);
        if (m.kind !== 'entity_detail') times[side].push(ms);
        if (!byKind.has(m.kind)) byKind.set(m.kind, { ours: [], theirs: [] });
        byKind.get(m.kind)![side].push(ms);
      }
    }
  const a = percentiles(times.ours);
  const b = percentiles(times.theirs);
  const ratio = (x: number, y: number): number => Math.round((x / y) * 100) / 100;
  const detail = byKind.get('entity_detail')!;
  const [dx, dy] = [percentiles(detail.ours), percentiles(detail.theirs)];
  for (const [kind, t] of byKind) {
    const [x, y] = [percentiles(t.ours), percentiles(t.theirs)];
    console.log(`${kind}: p50 ${ratio(x.p50, y.p50)}, p95 ${ratio(x.p95, y.p95)}`);
  }
  console.log(
    JSON.stringify({
      requests: times.ours.length,
      ours: a,
      theirs: b,
      ratio: { p50: ratio(a.p50, b.p50), p95: ratio(a.p95, b.p95), p99: ratio(a.p99, b.p99) },
      detail: { requests: detail.ours.length, ours: dx, theirs: dy, ratio: { p50: ratio(dx.p50, dy.p50) } },
    }),
  );
} finally {
  const exited = (c: ChildProcess): Promise<unknown> => new Promise((resolve) => c.once('exit', resolve));
  const both = Promise.all([exited(ours.child), exited(theirs.child)]);
  ours.child.kill('SIGTERM');
  theirs.child.kill('SIGTERM');
  await both;
  await pool.end();
  if (otherPool !== pool) await otherPool.end();
  await server?.stop();
}
