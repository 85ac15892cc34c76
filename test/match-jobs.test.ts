// Match jobs (docs/matching.md, "Jobs"): a file uploaded as it streams, matched in the background a chunk at a time,
// each row charged once (also when the balance runs out mid-job, and across a worker killed with -9 and another
// taking over), its results downloaded as CSV or JSON lines, and every bad upload refused with nothing created.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { createKey, setPerMinute } from '../src/accounts/workspaces.js';
import { systemClock } from '../src/clock.js';
import { startJobWorker, type JobWorker } from '../src/matching/runner.js';
import { runJob } from '../src/jobs/job.js';
import { findJob } from '../src/main/jobs.js';
import { loadFixture } from './support/fixture.js';
import { testApp, PEPPER, type TestApp } from './support/app.js';
import { serverProcess } from './support/server-process.js';

let t: TestApp;
let names: Array<{ name: string; city: string; doc: string }>;

before(async () => {
  t = await testApp({ now: '2026-03-10T12:00:00Z' });
  await loadFixture(t.db.pool);
  const { rows } = await t.db.pool.query<{ name: string; city: string; doc: string }>(
    `SELECT name, principal_city AS city, document_number AS doc FROM registry.entities ORDER BY document_number`,
  );
  names = rows;
});
after(() => t.close());

/** The fixture's names in turn; `distinct` gives each row a street of its own, so that no row repeats another. */
const csvOf = (rows: number, header = 'Company,Town,Ref', distinct = false): string =>
  [
    distinct ? `${header},Street` : header,
    ...Array.from({ length: rows }, (_, i) => {
      const e = names[i % names.length]!;
      const line = `"${e.name.replaceAll('"', '""')}",${e.city},r${i + 1}`;
      return distinct ? `${line},${i + 1} MAIN ST` : line;
    }),
  ].join('\n');

async function upload(key: string, body: string, query = 'name=Company&city=Town&reference=Ref', headers = {}) {
  return t.app.http.inject({
    method: 'POST',
    url: `/v1/match/jobs?${query}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv', ...headers },
    payload: body,
  });
}

type Match = Parameters<typeof startJobWorker>[0]['match'];
const matcher: Match = (queries, opts) =>
  t.app.services.search.match(queries, { limit: opts.limit, algorithm: 'match-v1' });

/** A worker of this process, as the server runs one, until `stop`. */
function worker(n = 1, match: Match = matcher): JobWorker {
  return startJobWorker(
    {
      pool: t.db.pool,
      match,
      worker: n,
      now: () => t.clock.now(),
      log: () => {},
    },
    1,
  );
}

async function until(key: string, id: string, done: (job: any) => boolean): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const job = (await t.get(`/v1/match/jobs/${id}`, key)).json().data;
    if (done(job)) return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${id} did not finish`);
}

const jobCount = async (): Promise<number> =>
  Number((await t.db.pool.query('SELECT count(*) FROM match_jobs')).rows[0].count);

describe('match jobs', () => {
  it('matches an uploaded CSV in the background, charges each row once, answers its results as a file', async () => {
    const { workspace, key } = await t.workspace('pro');
    const before = (await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining;
    const res = await upload(key.key, csvOf(250));
    assert.equal(res.statusCode, 202, res.body);
    const job = res.json().data;
    assert.match(job.id, /^mj_[0-9a-f]{24}$/);
    assert.equal(job.status, 'queued');
    assert.equal(job.total_rows, 250);
    assert.deepEqual(job.columns, { name: 'Company', city: 'Town', reference: 'Ref' });
    const w = worker();
    try {
      const done = await until(key.key, job.id, (j) => j.status === 'completed');
      assert.equal(done.done_rows, 250);
      assert.ok(done.matched_rows > 200, `matched ${done.matched_rows}`);
    } finally {
      await w.stop();
    }
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining, before - 250);
    const csv = await t.get(`/v1/match/jobs/${job.id}/results`, key.key);
    assert.equal(csv.statusCode, 200);
    assert.match(csv.headers['content-type'] as string, /^text\/csv/);
    const lines = csv.body.trim().split('\n');
    assert.equal(lines.length, 251);
    assert.match(
      lines[0]!,
      /^row,name,city,zip,address,officer,entity_type,document_number,reference,match,candidate_document_number,/,
    );
    const first = names[0]!;
    assert.ok(lines[1]!.startsWith(`1,`) && lines[1]!.includes(`,true,${first.doc},`), lines[1]);
    const jsonl = await t.get(`/v1/match/jobs/${job.id}/results?format=jsonl`, key.key);
    const rows = jsonl.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(rows.length, 250);
    assert.equal(rows[0].input.reference, 'r1');
    assert.equal(rows[0].result.candidate.document_number, first.doc);
    const listed = (await t.get('/v1/match/jobs', key.key)).json();
    assert.equal(listed.data[0].id, job.id);
  });

  it('answers a row whose search times out as such, uncharged, and matches the rest of its chunk', async () => {
    const { workspace, key } = await t.workspace('pro');
    const before = (await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining;
    const res = await upload(
      key.key,
      csvOf(150, 'Company,Town,Ref', true),
      'name=Company&city=Town&reference=Ref&address=Street',
    );
    const job = res.json().data;
    // The matcher as it meets a statement past statement_timeout for the row at 5 MAIN ST: that row answered
    // query_timeout beside the others, and the whole call failed when it is the only row.
    const slow: Match = async (queries, opts) => {
      const timedOut = (q: (typeof queries)[number]): boolean => q.address === '5 MAIN ST';
      if (queries.every(timedOut))
        throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
      const answer = await matcher(queries, opts);
      const results = answer.results.map((r, i) =>
        timedOut(queries[i]!) ? { ...r, match: null, candidates: [], error: 'query_timeout' as const } : r,
      );
      return { ...answer, results };
    };
    const w = worker(1, slow);
    try {
      const done = await until(key.key, job.id, (j) => j.status !== 'queued' && j.status !== 'running');
      assert.equal(done.status, 'completed');
      assert.equal(done.done_rows, 150);
    } finally {
      await w.stop();
    }
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining, before - 149);
    const rows = (await t.get(`/v1/match/jobs/${job.id}/results?format=jsonl`, key.key)).body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(rows[4].result, { match: false, candidate: null, error: 'query_timeout' });
    assert.equal(rows[3].result.candidate.document_number, names[3 % names.length]!.doc);
    assert.equal(rows[5].result.candidate.document_number, names[5 % names.length]!.doc);
    const csv = (await t.get(`/v1/match/jobs/${job.id}/results`, key.key)).body.trim().split('\n');
    assert.ok(csv[0]!.endsWith(',error'), csv[0]);
    assert.ok(csv[5]!.endsWith(',query_timeout'), csv[5]);
  });

  it('reads JSON lines by field names, and gives the job made under an Idempotency-Key again', async () => {
    const { key } = await t.workspace('pro');
    const body = names.map((e) => JSON.stringify({ name: e.name, city: e.city })).join('\n');
    const send = () =>
      t.app.http.inject({
        method: 'POST',
        url: '/v1/match/jobs',
        headers: {
          authorization: `Bearer ${key.key}`,
          'content-type': 'application/x-ndjson',
          'idempotency-key': 'k1',
        },
        payload: body,
      });
    const count = await jobCount();
    const [a, b] = [await send(), await send()];
    assert.equal(a.statusCode, 202, a.body);
    assert.equal(b.json().data.id, a.json().data.id);
    assert.equal(await jobCount(), count + 1);
    assert.equal(a.json().data.total_rows, names.length);
  });

  it('refuses a bad upload naming what is wrong, and creates nothing', async () => {
    const { workspace, key } = await t.workspace('pro');
    const test = await createKey(t.db.pool, workspace.id, 'test', PEPPER, systemClock);
    const count = await jobCount();
    const cases: Array<[Awaited<ReturnType<typeof upload>>, number, string]> = [
      [await upload(key.key, csvOf(3), 'name=Firm'), 400, 'name'],
      [await upload(key.key, csvOf(3), 'city=Town'), 400, 'name'],
      [await upload(key.key, 'Company,Town\n,Tampa\n', 'name=Company&city=Town'), 400, 'name'],
      [await upload(key.key, csvOf(3), 'name=Company&colour=red'), 400, 'colour'],
      [await upload(key.key, csvOf(3), 'name=Company', { 'content-type': 'application/json' }), 400, 'content-type'],
      [await upload(key.key, 'Company\n', 'name=Company'), 400, 'body'],
      [await upload(key.key, 'Company,Town\n"unclosed,Tampa\n', 'name=Company'), 400, 'body'],
    ];
    const bare = await t.app.http.inject({
      method: 'POST',
      url: '/v1/match/jobs?name=Company',
      headers: { authorization: `Bearer ${key.key}` },
    });
    assert.equal(bare.statusCode, 400, bare.body);
    assert.ok('content-type' in bare.json().error.details);
    const refused = await upload(test.key, csvOf(3));
    assert.equal(refused.statusCode, 403, refused.body);
    for (const [res, status, param] of cases) {
      assert.equal(res.statusCode, status, res.body);
      assert.ok(param in (res.json().error.details ?? {}), res.body);
    }
    assert.equal(await jobCount(), count);
    const missing = await t.get('/v1/match/jobs/mj_000000000000000000000000/results', key.key);
    assert.equal(missing.statusCode, 404);
  });

  it('stops at the chunk the balance does not cover: the rows before it done and charged, none after', async () => {
    const { workspace, key } = await t.workspace('developer');
    await t.db.pool.query(
      `UPDATE workspaces SET monthly_remaining = 150, subscription_status = 'cancelled' WHERE id = $1`,
      [workspace.id],
    );
    const job = (await upload(key.key, csvOf(250))).json().data;
    const w = worker();
    try {
      const done = await until(key.key, job.id, (j) => j.status === 'failed');
      assert.equal(done.done_rows, 100);
      assert.equal(done.error.code, 'payment_required');
    } finally {
      await w.stop();
    }
    const { rows } = await t.db.pool.query('SELECT monthly_remaining FROM workspaces WHERE id = $1', [workspace.id]);
    assert.equal(Number(rows[0].monthly_remaining), 50);
  });

  it('deletes the jobs ended more than 30 days ago with their rows, and no other', async () => {
    const { key } = await t.workspace('pro');
    const [old, recent, open] = await Promise.all(
      [1, 2, 3].map(async () => (await upload(key.key, csvOf(3))).json().data.id as string),
    );
    const day = 86_400_000;
    const now = t.clock.now().getTime();
    await t.db.pool.query(`UPDATE match_jobs SET status = 'completed', finished_at = $2 WHERE id = $1`, [
      old,
      new Date(now - 31 * day),
    ]);
    await t.db.pool.query(`UPDATE match_jobs SET status = 'cancelled', finished_at = $2 WHERE id = $1`, [
      recent,
      new Date(now - 29 * day),
    ]);
    const ctx = { pool: t.db.pool, config: t.config, clock: t.clock, asOf: t.clock.now(), log: () => {} };
    const run = await runJob(findJob('match_job_purge'), ctx, 'manual');
    assert.equal(run.status, 'succeeded');
    assert.ok(Number(run.counts.match_jobs_deleted) >= 1);
    const { rows } = await t.db.pool.query('SELECT id FROM match_jobs WHERE id = ANY($1)', [[old, recent, open]]);
    assert.deepEqual(rows.map((r) => r.id).sort(), [recent, open].sort());
    const left = await t.db.pool.query('SELECT count(*)::int AS n FROM match_job_rows WHERE job_id = $1', [old]);
    assert.equal(left.rows[0].n, 0);
  });

  it('resumes on another worker after a kill -9, charging no row twice', async () => {
    const { workspace, key } = await t.workspace('pro');
    await setPerMinute(t.db.pool, workspace.id, 1_000_000);
    const before = (await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining;
    const job = (await upload(key.key, csvOf(3000, undefined, true), 'name=Company&city=Town&address=Street')).json()
      .data;
    const dataDir = await mkdtemp(path.join(tmpdir(), 'rl-jobs-'));
    const env = { DATABASE_URL: t.db.url, DATA_DIR: dataDir, API_KEY_PEPPER: PEPPER, WEBHOOKS_DELIVERY: '0' };
    try {
      const first = await serverProcess(env, { command: 'worker' });
      await until(key.key, job.id, (j) => j.done_rows >= 300);
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      const cut = (await t.get(`/v1/match/jobs/${job.id}`, key.key)).json().data.done_rows;
      assert.ok(cut < 3000, 'killed mid-job');
      const second = await serverProcess(env, { command: 'worker' });
      try {
        const done = await until(key.key, job.id, (j) => j.status === 'completed');
        assert.equal(done.done_rows, 3000);
      } finally {
        second.kill('SIGTERM');
        await new Promise((resolve) => second.once('exit', resolve));
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT request_id)::int AS rows FROM credit_ledger
       WHERE workspace_id = $1 AND kind = 'consumption' AND request_id LIKE $2`,
      [workspace.id, `${job.id}:%`],
    );
    assert.deepEqual(rows[0], { n: 3000, rows: 3000 });
    assert.equal((await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining, before - 3000);
  });
});
