// A connection held across other work (a job's lock session) that PostgreSQL ends while it waits idle (a restart,
// a crash): the process goes on and the job's run ends, instead of the process dying of an unhandled 'error'. And a
// run whose process died is marked failed (abandoned) by the next run, not left 'running' for ever.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config/index.js';
import { createPool } from '../src/db/pool.js';
import { ABANDONED, runJob, type Job } from '../src/jobs/job.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
before(async () => (db = await testDatabase()));
after(() => db.close());

describe('a job whose session or process dies', () => {
  it("ends the job's run, not the process", async () => {
    const pool = createPool(db.url, 2, { applicationName: 'held-client-test' });
    let ended!: () => void;
    let started!: () => void;
    const waiting = new Promise<void>((resolve) => (ended = resolve));
    const running = new Promise<void>((resolve) => (started = resolve));
    const job: Job = {
      name: 'held_client_probe',
      schedule: '* * * * *',
      description: 'waits while its lock session is ended',
      async run() {
        started();
        await waiting;
        return {};
      },
    };
    const ctx = { pool, config: loadConfig({}), clock: systemClock, asOf: new Date(), log: () => {} };
    const run = runJob(job, ctx, 'manual').catch((err: unknown) => ({ status: 'threw', error: String(err) }));
    await running; // the lock is held, its session idle while the job runs
    // The lock's session, idle while the job runs, is ended as a restarting server ends it.
    for (let i = 0; i < 50; i++) {
      const { rowCount } = await db.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = 'held-client-test' AND state = 'idle'`,
      );
      if (rowCount) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    ended();
    const result = await run;
    assert.ok(['succeeded', 'failed', 'threw'].includes(String(result.status)), JSON.stringify(result));
    assert.equal((await pool.query('SELECT 1 AS one')).rows[0].one, 1); // the pool goes on with a new connection
    await pool.end();
  });

  it("a run left 'running' by a process that died is marked failed, abandoned, by the next run", async () => {
    const pool = createPool(db.url, 2);
    const { rows } = await pool.query<{ id: number }>(
      `INSERT INTO job_runs (job, trigger, as_of, started_at, status)
       VALUES ('abandon_probe', 'schedule', now(), now(), 'running') RETURNING id`,
    );
    const job: Job = {
      name: 'abandon_probe',
      schedule: '* * * * *',
      description: 'does nothing',
      run: async () => ({}),
    };
    const ctx = { pool, config: loadConfig({}), clock: systemClock, asOf: new Date(), log: () => {} };
    assert.equal((await runJob(job, ctx, 'manual')).status, 'succeeded');
    const { rows: old } = await pool.query<{ status: string; error: string; finished: boolean }>(
      'SELECT status, error, finished_at IS NOT NULL AS finished FROM job_runs WHERE id = $1',
      [rows[0]!.id],
    );
    assert.deepEqual(old[0], { status: 'failed', error: ABANDONED, finished: true });
    await pool.end();
  });
});
