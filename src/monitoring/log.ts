// The delivery log (docs/webhooks.md, "Delivery log"): every attempt to reach an endpoint, kept 30 days by
// purgeDeliveryLog, read newest first.
import type pg from 'pg';
import { Refusal } from './store.js';

export interface LoggedAttempt {
  event_id: string;
  event_type: string;
  /** 1 for the first attempt of this event to this endpoint still in the log. */
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  response_excerpt: string | null;
  delivery_status: string;
}

/** An endpoint's attempts, newest first; a refusal when the workspace has no such endpoint. */
export async function listAttempts(
  pool: pg.Pool,
  workspace: string,
  endpoint: string,
  page: { limit: number; offset: number },
): Promise<{ rows: LoggedAttempt[]; total: number }> {
  const { rows: found } = await pool.query('SELECT 1 FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2', [
    workspace,
    endpoint,
  ]);
  if (!found[0]) throw new Refusal('not_found', 'id', `No webhook endpoint ${endpoint}.`);
  const { rows } = await pool.query<LoggedAttempt>(
    `SELECT d.event_id, m.type AS event_type,
       (row_number() OVER (PARTITION BY a.delivery_id ORDER BY a.attempted_at, a.id))::int AS attempt,
       to_char(a.attempted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS attempted_at,
       a.status_code, a.error, a.latency_ms, a.response_excerpt, d.status AS delivery_status
     FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
     JOIN monitoring_events m ON m.id = d.event_id
     WHERE d.endpoint_id = $1
     ORDER BY a.attempted_at DESC, a.id DESC LIMIT $2 OFFSET $3`,
    [endpoint, page.limit, page.offset],
  );
  const { rows: n } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
     WHERE d.endpoint_id = $1`,
    [endpoint],
  );
  return { rows, total: n[0]!.n };
}
