// Delivering the outbox (docs/webhooks.md, "Delivery"): due deliveries are claimed with FOR UPDATE SKIP
// LOCKED and leased (their next attempt moved past the timeout) in one short transaction, so instances
// running side by side never take the same one, and a delivery whose instance died is taken again when
// its lease ends: at least once, always under the event's one id.
import type pg from 'pg';
import type { Mailer } from '../accounts/mail.js';
import { DELIVERY_DEADLINE_MS, post, type Attempt } from './send.js';
import { signatureHeaders } from './signature.js';

/** A claimed delivery is not taken again before this: its deadline, and ample time to record the outcome. */
const LEASE_SECONDS = Math.ceil((DELIVERY_DEADLINE_MS * 3) / 1000);
/** Deliveries claimed at a time by one instance (each pass sends them concurrently). */
const CLAIM_BATCH = 50;
/** Retries stop this long after the event: it is then marked failed and its endpoint paused. */
const RETRY_WINDOW_HOURS = 72;
/** The longest wait between two attempts, once the doubling reaches it. */
const MAX_BACKOFF_SECONDS = 6 * 3600;
/** Attempts are kept this long in the delivery log. */
const ATTEMPT_LOG_DAYS = 30;

export interface DeliverySettings {
  allowPrivate: boolean;
  /** The first retry's wait; each next one doubles it (docs/webhooks.md, "Retries"). */
  retrySeconds: number;
}

/** Wait after the n-th failed attempt. */
export const backoffSeconds = (attempts: number, base: number): number =>
  Math.min(base * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_SECONDS);

interface Claimed {
  id: number;
  attempts: number;
  created_at: Date;
  endpoint_id: string;
  workspace_id: string;
  url: string;
  secret: string;
  payload: unknown;
}

async function claim(pool: pg.Pool): Promise<Claimed[]> {
  const { rows } = await pool.query<Claimed>(
    `WITH due AS (
       SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints p ON p.id = d.endpoint_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND p.paused_at IS NULL
       ORDER BY d.next_attempt_at LIMIT $1 FOR UPDATE OF d SKIP LOCKED),
     leased AS (
       UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $2), attempts = attempts + 1
       FROM due WHERE d.id = due.id RETURNING d.*)
     SELECT l.id, l.attempts, l.created_at, l.endpoint_id, p.workspace_id, p.url, p.secret, m.payload
     FROM leased l JOIN webhook_endpoints p ON p.id = l.endpoint_id JOIN monitoring_events m ON m.id = l.event_id`,
    [CLAIM_BATCH, LEASE_SECONDS],
  );
  return rows;
}

/** Records an attempt; says whether the delivery is now failed for good (and its endpoint paused). */
async function record(pool: pg.Pool, d: Claimed, a: Attempt, settings: DeliverySettings): Promise<boolean> {
  await pool.query(
    `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_excerpt, error)
     VALUES ($1, now(), $2, $3, $4, $5)`,
    [d.id, a.statusCode, a.latencyMs, a.excerpt, a.error],
  );
  if (a.ok) {
    await pool.query(`UPDATE webhook_deliveries SET status = 'delivered', finished_at = now() WHERE id = $1`, [d.id]);
    await pool.query('UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1', [d.endpoint_id]);
    return false;
  }
  const wait = backoffSeconds(d.attempts, settings.retrySeconds);
  const { rows } = await pool.query<{ status: string }>(
    `UPDATE webhook_deliveries SET
       status = CASE WHEN now() + make_interval(secs => $2) > created_at + make_interval(hours => $3)
                THEN 'failed' ELSE 'pending' END,
       next_attempt_at = now() + make_interval(secs => $2),
       finished_at = CASE WHEN now() + make_interval(secs => $2) > created_at + make_interval(hours => $3)
                     THEN now() END
     WHERE id = $1 RETURNING status`,
    [d.id, wait, RETRY_WINDOW_HOURS],
  );
  const failed = rows[0]?.status === 'failed';
  // The subquery reads the row as it was before this statement: newly paused, not paused before.
  const { rows: paused } = await pool.query<{ newly: boolean }>(
    `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1,
       paused_at = CASE WHEN $2 THEN coalesce(paused_at, now()) ELSE paused_at END,
       paused_reason = CASE WHEN $2 AND paused_at IS NULL THEN 'failing' ELSE paused_reason END
     WHERE id = $1
     RETURNING $2 AND (SELECT w.paused_at IS NULL FROM webhook_endpoints w WHERE w.id = $1) AS newly`,
    [d.endpoint_id, failed],
  );
  return paused[0]?.newly === true;
}

/** Tells the workspace's owner that an endpoint was paused. */
async function noticePaused(pool: pg.Pool, mailer: Mailer | null, d: Claimed): Promise<void> {
  if (!mailer) return;
  const { rows } = await pool.query<{ email: string }>(
    `SELECT u.email FROM workspace_members m JOIN users u ON u.id = m.user_id
     WHERE m.workspace_id = $1 AND m.role = 'owner'`,
    [d.workspace_id],
  );
  for (const r of rows) {
    await mailer.send({
      to: r.email,
      subject: 'Webhook endpoint paused',
      text:
        `Deliveries to ${d.url} (endpoint ${d.endpoint_id}) failed for ${RETRY_WINDOW_HOURS} hours, so the ` +
        'endpoint is paused. Resume it with POST /v1/webhooks/{id}/resume once it answers again; ' +
        'failed events can be replayed with POST /v1/webhooks/events/{id}/replay.',
    });
  }
}

/** Sends what is due, batch after batch, until nothing is; returns the counts. */
export async function deliverDue(
  pool: pg.Pool,
  settings: DeliverySettings,
  mailer: Mailer | null,
): Promise<{ delivered: number; retrying: number; paused: number }> {
  const counts = { delivered: 0, retrying: 0, paused: 0 };
  for (;;) {
    const batch = await claim(pool);
    if (batch.length === 0) return counts;
    await Promise.all(
      batch.map(async (d) => {
        const body = JSON.stringify(d.payload);
        const attempt = await post(d.url, body, signatureHeaders(d.secret, body, new Date()), settings.allowPrivate);
        const paused = await record(pool, d, attempt, settings);
        if (attempt.ok) counts.delivered++;
        else counts.retrying++;
        if (paused) {
          counts.paused++;
          await noticePaused(pool, mailer, d);
        }
      }),
    );
  }
}

/** Drops attempts older than the log keeps, and finished deliveries with them. */
/** Deletes the attempts older than ATTEMPT_LOG_DAYS, and the delivery job's own runs of that age (it runs every few
 *  seconds: some 17,000 job_runs rows a day). */
export async function purgeDeliveryLog(
  pool: pg.Pool,
  asOf: Date,
  deliveryJob: string,
): Promise<{ deleted: number; job_runs_deleted: number }> {
  const attempts = await pool.query(
    `DELETE FROM webhook_attempts WHERE attempted_at < $1::timestamptz - make_interval(days => $2)`,
    [asOf, ATTEMPT_LOG_DAYS],
  );
  const runs = await pool.query(
    `DELETE FROM job_runs WHERE job = $3 AND started_at < $1::timestamptz - make_interval(days => $2)`,
    [asOf, ATTEMPT_LOG_DAYS, deliveryJob],
  );
  return { deleted: attempts.rowCount ?? 0, job_runs_deleted: runs.rowCount ?? 0 };
}
