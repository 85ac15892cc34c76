// The account pages' reading of the request log: one workspace's requests of the last 30 days, filtered, a page at a
// time by keyset on the workspace's index (workspace_id, at, request_id), never by offset, so that the thousandth page
// costs what the first does; one request in full; and the filtered range in batches for the CSV export.
import type pg from 'pg';
import { REQUEST_LOG_RETENTION_DAYS } from './request-log.js';

/** Members' calls through the playground, as the key filter names them. */
export const MEMBERS_FILTER = 'members';

export interface LogQuery {
  /** Statuses from low to high inclusive (one status, or a class such as 400 to 499). */
  readonly status?: { readonly low: number; readonly high: number } | null;
  /** A part of the route's pattern. */
  readonly route?: string;
  readonly requestId?: string;
  /** A key's id, or MEMBERS_FILTER. */
  readonly key?: string | null;
  /** From this instant (inclusive) to that one (exclusive). */
  readonly from?: Date | null;
  readonly to?: Date | null;
}

/** Where a page starts: after (older than) or before (newer than) a row, by its time and request id. */
export interface Cursor {
  readonly at: string;
  readonly requestId: string;
  readonly direction: 'older' | 'newer';
}

export interface LogEntry {
  request_id: string;
  /** To the microsecond, ISO 8601 in UTC: also the cursor's time. */
  at: string;
  key_id: string | null;
  key_hint: string | null;
  key_name: string | null;
  user_email: string | null;
  surface: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  credits: number;
}

export interface LogEntryDetail extends LogEntry {
  client_ip: string | null;
}

export interface LogPage {
  rows: LogEntry[];
  /** Cursors of the pages around this one, when there are rows there. */
  older: Cursor | null;
  newer: Cursor | null;
}

const AT = `to_char(l.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const COLUMNS = `l.request_id, ${AT} AS at, l.key_id, k.hint AS key_hint, k.name AS key_name, u.email AS user_email,
  l.surface, l.method, l.route, l.status, round(l.duration_ms::numeric, 1)::float8 AS duration_ms, l.credits`;

/**
 * The WHERE of a query and its values: only the conditions asked for. Every bound on time (the retention, the days,
 * the cursor) is written as a row comparison led by the workspace, so that it bounds the scan of the workspace's
 * index (workspace_id, at, request_id) rather than the table-wide index on `at`.
 */
function where(workspaceId: string, q: LogQuery, now: Date, cursor: Cursor | null): [string, unknown[]] {
  const values: unknown[] = [workspaceId, now, REQUEST_LOG_RETENTION_DAYS];
  const conditions = [
    'workspace_id = $1',
    '(workspace_id, at) > ($1::text, $2::timestamptz - make_interval(days => $3))',
  ];
  const add = (sql: (n: (v: unknown) => string) => string) => {
    conditions.push(
      sql((v) => {
        values.push(v);
        return `$${values.length}`;
      }),
    );
  };
  if (q.from) add((n) => `(workspace_id, at) >= ($1::text, ${n(q.from)}::timestamptz)`);
  if (q.to) add((n) => `(workspace_id, at) < ($1::text, ${n(q.to)}::timestamptz)`);
  if (q.status) add((n) => `status BETWEEN ${n(q.status!.low)}::int AND ${n(q.status!.high)}::int`);
  if (q.route) add((n) => `strpos(route, ${n(q.route)}::text) > 0`);
  if (q.requestId) add((n) => `request_id = ${n(q.requestId)}::text`);
  if (q.key === MEMBERS_FILTER) conditions.push('key_id IS NULL AND user_id IS NOT NULL');
  else if (q.key) add((n) => `key_id = ${n(q.key)}::text`);
  if (cursor)
    add(
      (n) =>
        `(workspace_id, at, request_id) ${cursor.direction === 'older' ? '<' : '>'} ` +
        `($1::text, ${n(cursor.at)}::timestamptz, ${n(cursor.requestId)}::text)`,
    );
  return [conditions.join(' AND '), values];
}

async function select(
  pool: pg.Pool,
  workspaceId: string,
  q: LogQuery,
  now: Date,
  cursor: Cursor | null,
  limit: number,
): Promise<LogEntry[]> {
  const [conditions, values] = where(workspaceId, q, now, cursor);
  const order = cursor?.direction === 'newer' ? 'ASC' : 'DESC';
  values.push(limit);
  const { rows } = await pool.query<LogEntry>(
    // The page first, read along the workspace's index however many rows it has; then who made them.
    `SELECT ${COLUMNS}
     FROM (SELECT * FROM request_logs WHERE ${conditions}
           ORDER BY at ${order}, request_id ${order} LIMIT $${values.length}) l
     LEFT JOIN api_keys k ON k.id = l.key_id
     LEFT JOIN users u ON u.id = l.user_id
     ORDER BY l.at DESC, l.request_id DESC`,
    values,
  );
  return rows;
}

const cursorOf = (r: LogEntry, direction: Cursor['direction']): Cursor => ({
  at: r.at,
  requestId: r.request_id,
  direction,
});

/** One page of the workspace's log, newest first, from the cursor (or the newest row). */
export async function logPage(
  pool: pg.Pool,
  workspaceId: string,
  q: LogQuery,
  now: Date,
  cursor: Cursor | null,
  size: number,
): Promise<LogPage> {
  // One row more than the page says whether there is another page that way.
  const rows = await select(pool, workspaceId, q, now, cursor, size + 1);
  const newer = cursor?.direction === 'newer';
  const more = rows.length > size;
  if (more) {
    if (newer) rows.shift();
    else rows.pop();
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    rows,
    older: last && (newer ? true : more) ? cursorOf(last, 'older') : null,
    newer: first && (newer ? more : cursor !== null) ? cursorOf(first, 'newer') : null,
  };
}

/** The rows of the filtered range, newest first, in batches read one after another (for a streamed export). */
export async function* logRange(
  pool: pg.Pool,
  workspaceId: string,
  q: LogQuery,
  now: Date,
  batch: number,
): AsyncGenerator<LogEntry[]> {
  let cursor: Cursor | null = null;
  for (;;) {
    const rows = await select(pool, workspaceId, q, now, cursor, batch);
    if (rows.length > 0) yield rows;
    if (rows.length < batch) return;
    cursor = cursorOf(rows[rows.length - 1]!, 'older');
  }
}

/** One request of the workspace, in full; null when it has none such (or it is older than the log keeps). */
export async function logEntry(pool: pg.Pool, workspaceId: string, requestId: string): Promise<LogEntryDetail | null> {
  const { rows } = await pool.query<LogEntryDetail>(
    `SELECT ${COLUMNS}, l.client_ip FROM request_logs l
     LEFT JOIN api_keys k ON k.id = l.key_id
     LEFT JOIN users u ON u.id = l.user_id
     WHERE l.request_id = $1 AND l.workspace_id = $2`,
    [requestId, workspaceId],
  );
  return rows[0] ?? null;
}
