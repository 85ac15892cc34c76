// The request log's filters and cursor as the page's query string carries them: read, checked (each bad value named
// under its field, never dropped silently), and written back into the links of the next pages and the CSV export.
import { MEMBERS_FILTER, type Cursor, type LogQuery } from '../../accounts/request-log-query.js';
import type { FieldErrors } from '../forms.js';

/** The filters as typed, to show them back in the form. */
export interface FilterText {
  status: string;
  route: string;
  request_id: string;
  key: string;
  from: string;
  to: string;
}

export interface ParsedFilters {
  readonly text: FilterText;
  readonly query: LogQuery;
  readonly cursor: Cursor | null;
  readonly errors: FieldErrors;
}

/** Longest route part and request id a filter takes (a route pattern is shorter; a request id is 28 characters). */
const ROUTE_MAX = 100;
const REQUEST_ID_MAX = 64;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const STATUS = /^(?:([1-5])xx|([1-5]\d\d))$/i;
const REQUEST_ID = /^[0-9A-Za-z_-]+$/;
// A cursor is a row's time to the microsecond and its request id, as the page's links write it.
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~([0-9A-Za-z_-]{1,64})$/;

const one = (v: unknown): string => (typeof v === 'string' ? v.trim() : Array.isArray(v) ? '\u0000' : '');

/** A UTC day written YYYY-MM-DD, as its midnight; null when it is no such day. */
function utcDay(s: string): Date | null {
  const m = DAY.exec(s);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s ? d : null;
}

const DAY_MS = 86_400_000;

/**
 * The query string's filters and cursor. `keys` are the workspace's key ids, which the key filter must name (or the
 * members' calls); a repeated parameter is refused like a malformed one.
 */
export function parseFilters(q: Record<string, unknown>, keys: ReadonlySet<string>): ParsedFilters {
  const text: FilterText = {
    status: one(q.status),
    route: one(q.route),
    request_id: one(q.request_id),
    key: one(q.key),
    from: one(q.from),
    to: one(q.to),
  };
  const errors: FieldErrors = {};
  const query: { -readonly [K in keyof LogQuery]: LogQuery[K] } = {};
  if (text.status) {
    const m = STATUS.exec(text.status);
    if (!m) errors.status = 'Status is a code such as 404 or a class such as 4xx (1xx to 5xx).';
    else if (m[1]) query.status = { low: Number(m[1]) * 100, high: Number(m[1]) * 100 + 99 };
    else query.status = { low: Number(m[2]), high: Number(m[2]) };
  }
  if (text.route) {
    if (text.route.length > ROUTE_MAX || /[\u0000-\u001f]/.test(text.route))
      errors.route = `A route filter is a part of a route such as /entities/search, at most ${ROUTE_MAX} characters.`;
    else query.route = text.route;
  }
  if (text.request_id) {
    if (text.request_id.length > REQUEST_ID_MAX || !REQUEST_ID.test(text.request_id))
      errors.request_id = 'A request id is written like req_ followed by letters and digits.';
    else query.requestId = text.request_id;
  }
  if (text.key) {
    if (text.key !== MEMBERS_FILTER && !keys.has(text.key)) errors.key = "Choose one of this workspace's keys.";
    else query.key = text.key;
  }
  for (const f of ['from', 'to'] as const) {
    if (!text[f]) continue;
    const day = utcDay(text[f]);
    if (!day) errors[f] = 'Enter a day as YYYY-MM-DD.';
    // `to` names the last day shown, whole.
    else query[f] = f === 'to' ? new Date(day.getTime() + DAY_MS) : day;
  }
  if (query.from && query.to && query.from >= query.to) errors.to = 'The last day comes on or after the first.';
  const cursor = parseCursor(q, errors);
  return { text, query, cursor, errors };
}

function parseCursor(q: Record<string, unknown>, errors: FieldErrors): Cursor | null {
  const before = one(q.before);
  const after = one(q.after);
  if (before && after) {
    errors.form = 'A page is asked for with before or after, not both.';
    return null;
  }
  const raw = before || after;
  if (!raw) return null;
  const m = CURSOR.exec(raw);
  if (!m || Number.isNaN(Date.parse(m[1]!))) {
    errors.form = 'This page link is malformed: start again from the newest requests.';
    return null;
  }
  return { at: m[1]!, requestId: m[2]!, direction: before ? 'older' : 'newer' };
}

/** The filters (and a cursor) as a query string, for a link. */
export function filterQuery(text: FilterText, cursor: Cursor | null = null): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(text)) if (v) params.set(k, v);
  if (cursor) params.set(cursor.direction === 'older' ? 'before' : 'after', `${cursor.at}~${cursor.requestId}`);
  const s = params.toString();
  return s ? `?${s}` : '';
}
