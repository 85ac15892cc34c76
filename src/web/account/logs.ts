// The request log of the last 30 days: every request of the workspace's keys and members, newest first, a page at a
// time (keyset: newer and older), filtered by days, key, status, route and request id; the filtered range as CSV; and
// one request in full.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stringify } from 'csv-stringify';
import { logEntry, logPage, logRange, type LogEntry } from '../../accounts/request-log-query.js';
import { REQUEST_LOG_RETENTION_DAYS } from '../../accounts/request-log.js';
import { listKeys, type ApiKeyInfo } from '../../accounts/workspaces.js';
import type { WebDeps } from '../context.js';
import { html } from '../html.js';
import { parseFilters, type ParsedFilters } from './log-filters.js';
import { logEntryBody, logsBody } from './logs-page.js';
import { memberOf, render, type Member } from './shared.js';

/** Rows a page shows: enough to scan, small enough to answer fast. */
const LOG_PAGE_ROWS = 100;
/** Rows the export reads per statement: the connection goes back to the pool between them, never held while a slow
 * client downloads. */
const CSV_BATCH_ROWS = 5_000;
const CSV_COLUMNS = [
  'time',
  'request_id',
  'key_id',
  'key_name',
  'member',
  'surface',
  'method',
  'route',
  'status',
  'duration_ms',
  'credits',
] as const;

const csvRecord = (r: LogEntry) => [
  r.at,
  r.request_id,
  r.key_id ?? '',
  r.key_name ?? '',
  r.user_email ?? '',
  r.surface,
  r.method,
  r.route,
  r.status,
  r.duration_ms,
  r.credits,
];

export async function logRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const filters = async (req: FastifyRequest, m: Member) => {
    const keys = await listKeys(deps.pool, m.workspaceId);
    const parsed = parseFilters(req.query as Record<string, unknown>, new Set(keys.map((k) => k.id)));
    return { keys, parsed };
  };
  const refused = (req: FastifyRequest, reply: FastifyReply, m: Member, f: ParsedFilters, keys: ApiKeyInfo[]) =>
    render(req, reply, deps, m, {
      title: 'Request log',
      section: '/account/logs',
      status: 400,
      body: logsBody({ ...f, keys, page: null, retentionDays: REQUEST_LOG_RETENTION_DAYS }),
    });

  app.get('/account/logs', async (req, reply) => {
    const m = memberOf(req);
    const { keys, parsed } = await filters(req, m);
    if (Object.keys(parsed.errors).length) return refused(req, reply, m, parsed, keys);
    const page = await logPage(deps.pool, m.workspaceId, parsed.query, deps.clock.now(), parsed.cursor, LOG_PAGE_ROWS);
    const body = logsBody({ ...parsed, keys, page, retentionDays: REQUEST_LOG_RETENTION_DAYS });
    return render(req, reply, deps, m, { title: 'Request log', section: '/account/logs', body });
  });

  app.get('/account/logs.csv', async (req, reply) => {
    const m = memberOf(req);
    const { keys, parsed } = await filters(req, m);
    if (Object.keys(parsed.errors).length) return refused(req, reply, m, parsed, keys);
    const now = deps.clock.now();
    // The range as of now, newest first, batch after batch as the client takes them (the stream's backpressure).
    const records = Readable.from(
      (async function* () {
        for await (const rows of logRange(deps.pool, m.workspaceId, parsed.query, now, CSV_BATCH_ROWS))
          for (const r of rows) yield csvRecord(r);
      })(),
    );
    const csv = records.pipe(stringify({ header: true, columns: [...CSV_COLUMNS], record_delimiter: '\r\n' }));
    records.on('error', (err) => csv.destroy(err));
    const day = now.toISOString().slice(0, 10);
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="requests-${m.workspaceId}-${day}.csv"`)
      .type('text/csv; charset=utf-8')
      .send(csv);
  });

  app.get<{ Params: { id: string } }>('/account/logs/:id', async (req, reply) => {
    const m = memberOf(req);
    const id = req.params.id;
    const entry = /^[0-9A-Za-z_-]{1,64}$/.test(id) ? await logEntry(deps.pool, m.workspaceId, id) : null;
    if (!entry)
      return render(req, reply, deps, m, {
        title: 'No such request',
        section: '/account/logs',
        status: 404,
        body: html`<div class="card">
          <p>This workspace has no request ${id} in the last ${REQUEST_LOG_RETENTION_DAYS} days.</p>
          <p><a class="button secondary" href="/account/logs">Back to the log</a></p>
        </div>`,
      });
    return render(req, reply, deps, m, { title: `Request ${id}`, section: '/account/logs', body: logEntryBody(entry) });
  });
}
