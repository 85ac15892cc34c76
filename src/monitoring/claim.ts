// Claiming due deliveries, endpoint by endpoint (docs/webhooks.md, "Delivery"). The endpoints with something due
// are locked FOR NO KEY UPDATE SKIP LOCKED (NO KEY: an import inserting deliveries, which key-shares the endpoint,
// does not hide it), so one instance at a time fills an endpoint's slots and instances never take the same
// delivery; an endpoint gets at most ENDPOINT_CAP in flight, counted from every instance's leases. A
// lease ends when the attempt is recorded, or by itself when the instance that took it died: the delivery is then
// taken again (at least once, always under the event's one id).
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { DELIVERY_DEADLINE_MS } from './send.js';

/** A claimed delivery is not taken again before this: its deadline, and as long again to record the outcome (a
 *  dead process's leases hold its endpoints' slots until then; one that ends too soon sends a delivery twice). */
const LEASE_SECONDS = Math.ceil((DELIVERY_DEADLINE_MS * 2) / 1000);
/** Requests in flight to one endpoint from all instances: a slow receiver holds no more slots than this, and a
 *  healthy one still takes a burst two at a time. */
const ENDPOINT_CAP = 2;

export interface Claimed {
  id: number;
  attempts: number;
  created_at: Date;
  endpoint_id: string;
  workspace_id: string;
  url: string;
  secret: string;
  /** The secret before the last rotation, while it still signs (docs/webhooks.md, "Rotating a secret"). */
  previous_secret: string | null;
  payload: { id: string };
}

/** A delivery that may be attempted now: pending, due, and not leased by a live instance. */
const DUE = `d.status = 'pending' AND d.next_attempt_at <= now()
  AND (d.leased_until IS NULL OR d.leased_until <= now())`;
const IN_FLIGHT = `l.status = 'pending' AND l.leased_until > now()`;

/** Leases up to `slots` due deliveries, the endpoints whose oldest due delivery is oldest first. */
export async function claim(pool: pg.Pool, slots: number): Promise<Claimed[]> {
  return inTransaction(pool, async (client) => {
    const { rows: endpoints } = await client.query<{ id: string }>(
      `SELECT p.id FROM webhook_endpoints p
       CROSS JOIN LATERAL (SELECT min(d.next_attempt_at) AS due FROM webhook_deliveries d
                           WHERE d.endpoint_id = p.id AND ${DUE}) oldest
       WHERE p.paused_at IS NULL AND oldest.due IS NOT NULL
         AND (SELECT count(*) FROM webhook_deliveries l WHERE l.endpoint_id = p.id AND ${IN_FLIGHT}) < $2
       ORDER BY oldest.due LIMIT $1
       FOR NO KEY UPDATE OF p SKIP LOCKED`,
      [slots, ENDPOINT_CAP],
    );
    if (endpoints.length === 0) return [];
    // A statement of its own: its snapshot, taken once the endpoints are locked, holds every lease committed by
    // the instance that locked them before.
    const { rows } = await client.query<Claimed>(
      `WITH candidates AS (
         SELECT d.id, d.next_attempt_at,
                row_number() OVER (PARTITION BY e.id ORDER BY d.next_attempt_at, d.id) AS nth,
                (SELECT count(*) FROM webhook_deliveries l WHERE l.endpoint_id = e.id AND ${IN_FLIGHT}) AS busy
         FROM unnest($1::text[]) AS e(id)
         CROSS JOIN LATERAL (SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
                             WHERE d.endpoint_id = e.id AND ${DUE}
                             ORDER BY d.next_attempt_at, d.id LIMIT $2) d),
       chosen AS (
         SELECT id FROM candidates WHERE nth <= $2 - busy ORDER BY nth, next_attempt_at LIMIT $3),
       leased AS (
         UPDATE webhook_deliveries d SET leased_until = now() + make_interval(secs => $4), attempts = attempts + 1
         FROM chosen WHERE d.id = chosen.id RETURNING d.*)
       SELECT l.id, l.attempts, l.created_at, l.endpoint_id, p.workspace_id, p.url, p.secret, m.payload,
              CASE WHEN p.previous_secret_until > now() THEN p.previous_secret END AS previous_secret
       FROM leased l JOIN webhook_endpoints p ON p.id = l.endpoint_id JOIN monitoring_events m ON m.id = l.event_id`,
      [endpoints.map((e) => e.id), ENDPOINT_CAP, slots, LEASE_SECONDS],
    );
    return rows;
  });
}
