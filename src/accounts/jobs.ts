// The accounts' scheduled jobs: the monthly cycle, the request-log purge, the release of credits
// reserved by requests that never finished, the purge of the web app's ended sessions and links, and
// the purge of answers kept for idempotency keys.
import type { Job } from '../jobs/job.js';
import { sweepReservations } from './gate.js';
import { TEST_KEY_MONTHLY_CREDITS } from './catalog.js';
import { purgeIdempotentRequests } from './idempotency.js';
import { purgeRequestLogs } from './request-log.js';
import { purgeSessions } from './sessions.js';
import { purgeChallenges } from './two-factor.js';

export const cycleJob: Job = {
  name: 'cycle',
  schedule: '0 0 1 * *',
  description:
    "monthly cycle (00:00 UTC on the 1st): unused monthly credits dropped, each plan's grant lands; idempotent",
  atStartup: true,
  async run({ pool, asOf }) {
    const { rows } = await pool.query<{ moved: number; workspaces: number }>(
      `SELECT count(*) FILTER (WHERE workspace_cycle(id, $1, $2)) AS moved, count(*) AS workspaces FROM workspaces`,
      [asOf, TEST_KEY_MONTHLY_CREDITS],
    );
    return { workspaces: rows[0]!.workspaces, moved_to_new_cycle: rows[0]!.moved };
  },
};

const logPurgeJob: Job = {
  name: 'log_purge',
  schedule: '30 0 * * *',
  description: 'deletes request logs older than 30 days (daily, 00:30 UTC)',
  async run({ pool, asOf }) {
    return { deleted: await purgeRequestLogs(pool, asOf) };
  },
};

const reservationSweepJob: Job = {
  name: 'reservation_sweep',
  schedule: '* * * * *',
  description: 'releases credits reserved by requests that never finished (every minute)',
  atStartup: true,
  async run({ pool, asOf }) {
    return { released: await sweepReservations(pool, asOf) };
  },
};

const webPurgeJob: Job = {
  name: 'web_purge',
  schedule: '45 0 * * *',
  description:
    'deletes web sessions and second login steps that are over, and mailed links used or expired (daily, 00:45 UTC)',
  async run({ pool, asOf }) {
    const { rowCount } = await pool.query('DELETE FROM email_tokens WHERE expires_at <= $1 OR used_at IS NOT NULL', [
      asOf,
    ]);
    return {
      sessions_deleted: await purgeSessions(pool, asOf),
      links_deleted: rowCount ?? 0,
      login_steps_deleted: await purgeChallenges(pool, asOf),
    };
  },
};

const idempotencyPurgeJob: Job = {
  name: 'idempotency_purge',
  schedule: '15 * * * *',
  description: 'forgets answers kept for Idempotency-Key replays once they are 24 hours old (hourly, at :15)',
  async run({ pool, asOf }) {
    return { deleted: await purgeIdempotentRequests(pool, asOf) };
  },
};

export const ACCOUNT_JOBS: readonly Job[] = [
  cycleJob,
  logPurgeJob,
  reservationSweepJob,
  webPurgeJob,
  idempotencyPurgeJob,
];
