// One delivery attempt and its outcome (docs/webhooks.md, "Delivery"): sent, recorded in the delivery log, the
// lease released, the next attempt scheduled by the delivery's own backoff, the endpoint paused (and its owner
// mailed) when the retries are over. The delivery loop (delivery-loop.ts) runs these side by side.
import type pg from 'pg';
import type { Mailer } from '../accounts/mail.js';
import { claim, type Claimed } from './claim.js';
import { post, type Attempt } from './send.js';
import { signatureHeaders } from './signature.js';

/** Retries stop this long after the event: it is then marked failed and its endpoint paused. */
const RETRY_WINDOW_HOURS = 72;
/** The longest wait between two attempts, once the doubling reaches it. */
const MAX_BACKOFF_SECONDS = 6 * 3600;
/** Attempts are kept this long in the delivery log. */
const ATTEMPT_LOG_DAYS = 30;
/** Deliveries claimed at a time by `deliverDue` (`registry worker --once`), sent side by side. */
const ONCE_BATCH = 50;

export interface DeliverySettings {
  allowPrivate: boolean;
  /** The first retry's wait; each next one doubles it (docs/webhooks.md, "Retries"). */
  retrySeconds: number;
}

/** Wait after the n-th failed attempt. */
export const backoffSeconds = (attempts: number, base: number): number =>
  Math.min(base * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_SECONDS);

export type Outcome = 'delivered' | 'retrying' | 'failed' | 'dropped';

/** Why delivery paused an endpoint: its retries ran out, or it answered 410 Gone. */
type PauseReason = 'failing' | 'gone';
const GONE = 410;

/** PostgreSQL's foreign_key_violation: the delivery went (with its endpoint) between the check and the insert. */
const FOREIGN_KEY_VIOLATION = '23503';

/** Records an attempt, releasing its lease; says what came of the delivery, and why its endpoint was just paused
 *  (its retries over, or 410 Gone), if it was. */
async function record(
  pool: pg.Pool,
  d: Claimed,
  a: Attempt,
  settings: DeliverySettings,
): Promise<{ outcome: Outcome; paused: PauseReason | null }> {
  // An endpoint deleted while its delivery was in flight took the delivery with it: nothing is left to record.
  const { rowCount } = await pool
    .query(
      `INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, response_excerpt, error)
       SELECT id, now(), $2, $3, $4, $5 FROM webhook_deliveries WHERE id = $1`,
      [d.id, a.statusCode, a.latencyMs, a.excerpt, a.error],
    )
    .catch((err: unknown) => {
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION) return { rowCount: 0 };
      throw err;
    });
  if (!rowCount) return { outcome: 'dropped', paused: null };
  if (a.ok) {
    await pool.query(
      `UPDATE webhook_deliveries SET status = 'delivered', finished_at = now(), leased_until = NULL WHERE id = $1`,
      [d.id],
    );
    await pool.query('UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1', [d.endpoint_id]);
    return { outcome: 'delivered', paused: null };
  }
  // 410 Gone: the receiver says the endpoint is no more; retrying it is pointless.
  const gone = a.statusCode === GONE;
  const wait = backoffSeconds(d.attempts, settings.retrySeconds);
  const { rows } = await pool.query<{ status: string }>(
    `UPDATE webhook_deliveries SET
       status = CASE WHEN $4 OR now() + make_interval(secs => $2) > created_at + make_interval(hours => $3)
                THEN 'failed' ELSE 'pending' END,
       next_attempt_at = now() + make_interval(secs => $2), leased_until = NULL,
       finished_at = CASE WHEN $4 OR now() + make_interval(secs => $2) > created_at + make_interval(hours => $3)
                     THEN now() END
     WHERE id = $1 RETURNING status`,
    [d.id, wait, RETRY_WINDOW_HOURS, gone],
  );
  const failed = rows[0]?.status === 'failed';
  // The row is locked and read first (as committed by an attempt recorded side by side), so one pause is noticed
  // once: newly paused, not paused before.
  const { rows: paused } = await pool.query<{ newly: boolean }>(
    `WITH was AS (SELECT paused_at FROM webhook_endpoints WHERE id = $1 FOR UPDATE)
     UPDATE webhook_endpoints p SET consecutive_failures = consecutive_failures + 1,
       paused_at = CASE WHEN $2 THEN coalesce(p.paused_at, now()) ELSE p.paused_at END,
       paused_reason = CASE WHEN $2 AND p.paused_at IS NULL THEN $3 ELSE p.paused_reason END
     FROM was WHERE p.id = $1
     RETURNING $2 AND was.paused_at IS NULL AS newly`,
    [d.endpoint_id, failed, gone ? 'gone' : 'failing'],
  );
  return {
    outcome: failed ? 'failed' : 'retrying',
    paused: paused[0]?.newly === true ? (gone ? 'gone' : 'failing') : null,
  };
}

/** Tells the workspace's owner that an endpoint was paused, and why. */
async function noticePaused(pool: pg.Pool, mailer: Mailer | null, d: Claimed, why: PauseReason): Promise<void> {
  if (!mailer) return;
  const { rows } = await pool.query<{ email: string }>(
    `SELECT u.email FROM workspace_members m JOIN users u ON u.id = m.user_id
     WHERE m.workspace_id = $1 AND m.role = 'owner'`,
    [d.workspace_id],
  );
  const cause =
    why === 'gone' ? 'answered 410 Gone, which says the endpoint is no more' : `failed for ${RETRY_WINDOW_HOURS} hours`;
  for (const r of rows) {
    await mailer.send({
      to: r.email,
      subject: 'Webhook endpoint paused',
      text:
        `Deliveries to ${d.url} (endpoint ${d.endpoint_id}) ${cause}, so the endpoint is paused. ` +
        'Resume it with POST /v1/webhooks/{id}/resume once it answers again; events that failed can be ' +
        'replayed with POST /v1/webhooks/events/replay (status "failed") or one by one.',
    });
  }
}

/** Sends one claimed delivery and records what came of it. */
export async function deliver(
  pool: pg.Pool,
  d: Claimed,
  settings: DeliverySettings,
  mailer: Mailer | null,
): Promise<Outcome> {
  const body = JSON.stringify(d.payload);
  // The event's id names every attempt of it: a receiver drops what it has already handled.
  const secrets = { current: d.secret, previous: d.previous_secret };
  const attempt = await post(
    d.url,
    body,
    signatureHeaders(secrets, d.payload.id, body, new Date()),
    settings.allowPrivate,
  );
  const { outcome, paused } = await record(pool, d, attempt, settings);
  if (paused) await noticePaused(pool, mailer, d, paused);
  return outcome;
}

/** Sends what is due now, batch after batch, until nothing is (`registry worker --once`); returns the counts. */
export async function deliverDue(
  pool: pg.Pool,
  settings: DeliverySettings,
  mailer: Mailer | null,
): Promise<Record<Outcome, number>> {
  const counts = { delivered: 0, retrying: 0, failed: 0, dropped: 0 };
  for (;;) {
    const batch = await claim(pool, ONCE_BATCH);
    if (batch.length === 0) return counts;
    for (const outcome of await Promise.all(batch.map((d) => deliver(pool, d, settings, mailer)))) counts[outcome]++;
  }
}

/** Deletes the attempts older than ATTEMPT_LOG_DAYS. */
export async function purgeDeliveryLog(pool: pg.Pool, asOf: Date): Promise<{ deleted: number }> {
  const attempts = await pool.query(
    `DELETE FROM webhook_attempts WHERE attempted_at < $1::timestamptz - make_interval(days => $2)`,
    [asOf, ATTEMPT_LOG_DAYS],
  );
  return { deleted: attempts.rowCount ?? 0 };
}
