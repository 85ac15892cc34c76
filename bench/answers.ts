// `npm run bench:answers -- --database URL --out FILE [--seed S] [--queries K]`
// Every answer of the bench's query mix, as JSON lines, from the compiled server on a loaded
// database: the tool that shows a refactoring changed no answer. Draw the mix from two databases
// loaded from the same files (or run two builds on one), then compare the files with `diff`.
// Request ids are left out of the answers; everything else is kept byte for byte.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createWorkspace, setPerMinute } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { projectRoot } from '../src/config/paths.js';
import { createPool } from '../src/db/pool.js';
import { detailPaths, drawMix } from './mix.js';
import { freePort, serverProcess } from '../test/support/server-process.js';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string' },
    out: { type: 'string' },
    seed: { type: 'string', default: '7' },
    queries: { type: 'string', default: '40' },
  },
});
if (!args.database || !args.out) {
  process.stderr.write('usage: npm run bench:answers -- --database URL --out FILE [--seed S] [--queries K]\n');
  process.exit(2);
}
const PEPPER = 'bench-answers-pepper';

const pool = createPool(args.database, 2);
const { workspace, key } = await createWorkspace(pool, { plan: 'enterprise', name: 'answers' }, PEPPER, systemClock);
await setPerMinute(pool, workspace.id, 10_000_000);
const seed = Number(args.seed);
const mix = await drawMix(pool, seed, Number(args.queries));
const paths = [...mix.map((m) => m.path), ...(await detailPaths(pool, seed, 100))];

const port = await freePort();
const child = await serverProcess(
  {
    DATABASE_URL: args.database,
    PORT: String(port),
    SCHEDULER: '0',
    API_KEY_PEPPER: PEPPER,
    DATA_DIR: path.join(os.tmpdir(), `answers-${process.pid}`),
  },
  { compiledIn: projectRoot, stdout: 'inherit' },
);
try {
  const lines: string[] = [];
  for (const p of paths) {
    const res = await fetch(`http://127.0.0.1:${port}/v1${p}`, { headers: { authorization: `Bearer ${key.key}` } });
    const body = (await res.json()) as { meta?: { request_id?: string }; error?: { request_id?: string } };
    delete body.meta?.request_id;
    delete body.error?.request_id;
    lines.push(JSON.stringify({ path: p, status: res.status, body }));
  }
  await writeFile(args.out, `${lines.join('\n')}\n`);
  process.stderr.write(`${lines.length} answers in ${args.out}\n`);
} finally {
  child.kill('SIGTERM');
  await pool.end();
}
