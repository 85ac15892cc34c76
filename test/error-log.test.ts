// A database outage in the log: the first failure with its cause, then a count per interval, then one
// line when a connection succeeds again; other errors one line each.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { ErrorLog, OUTAGE_REPORT_MS } from '../src/api/error-log.js';
import { ManualClock } from '../src/clock.js';
import { createPool, isDatabaseUnavailable } from '../src/db/pool.js';

function recordingLogger(): { logger: FastifyBaseLogger; lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = [];
  const at =
    (level: string) =>
    (_fields: unknown, message: string): void =>
      void lines.push({ level, message });
  const logger = { error: at('error'), warn: at('warn') } as unknown as FastifyBaseLogger;
  return { logger, lines };
}

describe('error log', () => {
  it('knows an unreachable database from a failed statement', async () => {
    const pool = createPool('postgres://nobody@127.0.0.1:1/none', 1);
    const refused = await pool.query('SELECT 1').catch((err: unknown) => err);
    await pool.end();
    assert.equal(isDatabaseUnavailable(refused), true);
    assert.equal(isDatabaseUnavailable({ code: '57P01', message: 'terminating connection' }), true);
    assert.equal(isDatabaseUnavailable({ code: '42P01', message: 'relation does not exist' }), false);
    assert.equal(isDatabaseUnavailable(new Error('boom')), false);
  });

  it('logs an outage once, then a count per interval, then its end', () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const clock = new ManualClock('2026-03-10T12:00:00Z');
      const { logger, lines } = recordingLogger();
      const log = new ErrorLog(logger, clock);
      const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      for (let i = 0; i < 5000; i++) log.error(down, { request_id: `req_${i}` }, 'operation failed');
      assert.equal(lines.length, 1);
      assert.equal(log.unavailable, true);
      clock.advance(OUTAGE_REPORT_MS);
      mock.timers.tick(OUTAGE_REPORT_MS);
      assert.equal(lines.length, 2);
      assert.match(lines[1]!.message, /4999 failures/);
      log.error(new Error('a bug'), {}, 'operation failed');
      assert.equal(lines.length, 3, 'other errors are logged as they come');
      clock.advance(2_000);
      log.connected();
      assert.equal(log.unavailable, false);
      assert.deepEqual(lines[3], {
        level: 'warn',
        message: 'the database answers again after 12 s (5000 failed requests)',
      });
      mock.timers.tick(OUTAGE_REPORT_MS * 3);
      assert.equal(lines.length, 4, 'no count after the outage');
      log.close();
    } finally {
      mock.timers.reset();
    }
  });
});
