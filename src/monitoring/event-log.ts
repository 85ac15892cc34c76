// A workspace's events (docs/webhooks.md, "Events" and "Event order"): listed in their sequence, read one by one,
// replayed one at a time or by range, and the `ping` that tries an endpoint.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { eventId, type EventType } from './events.js';
import { appendEvents } from './outbox.js';
import { iso, Refusal } from './store.js';

/** Deliveries one range replay may restart: a replay is one request's work; a wider range is replayed in parts. */
export const MAX_REPLAY_DELIVERIES = 10_000;

export interface StoredEvent {
  id: string;
  sequence: number;
  type: EventType;
  created_at: string;
  payload: unknown;
  deliveries: Array<{ endpoint_id: string; status: string; attempts: number }>;
}

// float8: the sequence is a bigint, which pg hands over as text; it is exact as a number below 2^53.
const EVENT_SELECT = `SELECT m.id, m.sequence::float8 AS sequence, m.type, ${iso('m.created_at')} AS created_at,
    m.payload, coalesce((
      SELECT jsonb_agg(jsonb_build_object('endpoint_id', d.endpoint_id, 'status', d.status, 'attempts', d.attempts)
                       ORDER BY d.endpoint_id)
      FROM webhook_deliveries d WHERE d.event_id = m.id), '[]') AS deliveries
  FROM monitoring_events m`;

export interface EventQuery {
  since?: string;
  types?: string[];
  /** Only the events numbered after this one, oldest first (resuming); otherwise newest first. */
  afterSequence?: number;
  limit: number;
  offset: number;
}

/** A workspace's events with their deliveries, newest first, or oldest first after a sequence number. */
export async function listEvents(
  pool: pg.Pool,
  workspace: string,
  q: EventQuery,
): Promise<{ rows: StoredEvent[]; total: number }> {
  const where = `m.workspace_id = $1 AND ($2::timestamptz IS NULL OR m.created_at >= $2)
    AND ($3::text[] IS NULL OR m.type = ANY($3)) AND ($4::bigint IS NULL OR m.sequence > $4)`;
  const args = [workspace, q.since ?? null, q.types?.length ? q.types : null, q.afterSequence ?? null];
  const order = q.afterSequence === undefined ? 'DESC' : 'ASC';
  const { rows } = await pool.query<StoredEvent>(
    `${EVENT_SELECT} WHERE ${where} ORDER BY m.sequence ${order} LIMIT $5 OFFSET $6`,
    [...args, q.limit, q.offset],
  );
  const { rows: n } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM monitoring_events m WHERE ${where}`,
    args,
  );
  return { rows, total: n[0]!.n };
}

/** One event of the workspace, with its deliveries. */
export async function getEvent(pool: pg.Pool, workspace: string, id: string): Promise<StoredEvent> {
  const { rows } = await pool.query<StoredEvent>(`${EVENT_SELECT} WHERE m.workspace_id = $1 AND m.id = $2`, [
    workspace,
    id,
  ]);
  if (!rows[0]) throw new Refusal('not_found', 'id', `No event ${id}.`);
  return rows[0];
}

const FAILED_ONLY = `AND EXISTS (SELECT 1 FROM webhook_deliveries d
  WHERE d.event_id = m.id AND d.endpoint_id = p.id AND d.status = 'failed')`;

/**
 * The deliveries a replay restarts: the chosen events' to every endpoint subscribed to their type (a `ping` to
 * every endpoint), or only those that failed; from $1's events chosen by `events`, to $2 when not null.
 */
const replayTargets = (events: string, failedOnly: boolean): string => `
  SELECT m.id AS event_id, p.id AS endpoint_id FROM monitoring_events m
  JOIN webhook_endpoints p ON p.workspace_id = m.workspace_id AND (m.type = ANY(p.event_types) OR m.type = 'ping')
  WHERE m.workspace_id = $1 AND (${events}) AND ($2::text IS NULL OR p.id = $2)
  ${failedOnly ? FAILED_ONLY : ''}`;

/** Restarts deliveries as new ones: their attempts count from the first again (the backoff from its base). */
const RESTART = `INSERT INTO webhook_deliveries (event_id, endpoint_id) SELECT event_id, endpoint_id FROM targets
  ON CONFLICT (event_id, endpoint_id) DO UPDATE SET status = 'pending', next_attempt_at = now(), created_at = now(),
    finished_at = NULL, attempts = 0`;

/** Sends an event again, under its same id, to every endpoint of the workspace subscribed to its type. */
export async function replayEvent(pool: pg.Pool, workspace: string, id: string): Promise<StoredEvent> {
  await getEvent(pool, workspace, id);
  await pool.query(`WITH targets AS (${replayTargets('m.id = $3', false)}) ${RESTART}`, [workspace, null, id]);
  return getEvent(pool, workspace, id);
}

export interface ReplayRange {
  since: string;
  until: string;
  failedOnly: boolean;
  endpoint?: string;
}

/** Replays the events written in [since, until) (only their failed deliveries with `failedOnly`). */
export async function replayEvents(
  pool: pg.Pool,
  workspace: string,
  range: ReplayRange,
): Promise<{ events: number; deliveries: number }> {
  return inTransaction(pool, async (client) => {
    if (range.endpoint) {
      const { rows } = await client.query('SELECT 1 FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2', [
        workspace,
        range.endpoint,
      ]);
      if (!rows[0]) throw new Refusal('not_found', 'endpoint_id', `No webhook endpoint ${range.endpoint}.`);
    }
    const targets = replayTargets('m.created_at >= $3 AND m.created_at < $4', range.failedOnly);
    const args = [workspace, range.endpoint ?? null, range.since, range.until];
    const { rows } = await client.query<{ events: number; deliveries: number }>(
      `SELECT count(DISTINCT event_id)::int AS events, count(*)::int AS deliveries FROM (${targets}) t`,
      args,
    );
    const found = rows[0]!;
    if (found.deliveries > MAX_REPLAY_DELIVERIES)
      throw new Refusal(
        'bad_request',
        'since',
        `The range holds ${found.deliveries} deliveries; at most ${MAX_REPLAY_DELIVERIES} are replayed at once: ` +
          'narrow it and replay the rest after.',
      );
    await client.query(`WITH targets AS (${targets}) ${RESTART}`, args);
    return found;
  });
}

/** A `ping` event to one endpoint, to try it. */
export async function sendTestEvent(pool: pg.Pool, workspace: string, endpoint: string): Promise<StoredEvent> {
  const id = eventId();
  await inTransaction(pool, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2', [
      workspace,
      endpoint,
    ]);
    if (!rows[0]) throw new Refusal('not_found', 'id', `No webhook endpoint ${endpoint}.`);
    const payload = { id, type: 'ping', data: { endpoint_id: endpoint } };
    await appendEvents(client, [{ id, workspace, type: 'ping', document: null, searchId: null, payload }], endpoint);
  });
  return getEvent(pool, workspace, id);
}
