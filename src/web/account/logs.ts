// The request log of the last 30 days: every request of the workspace's keys and members, newest first,
// filtered by status (404 or 4xx), route and request id.
import type { FastifyInstance } from 'fastify';
import {
  listRequestLogs,
  REQUEST_LOG_RETENTION_DAYS,
  type LogEntry,
  type LogFilter,
} from '../../accounts/request-log.js';
import type { WebDeps } from '../context.js';
import { html, num } from '../html.js';
import { memberOf, render } from './shared.js';

/** Rows shown at once: enough to scan, small enough to answer fast. */
const LOG_PAGE_ROWS = 200;

/** Who made a request: the key's name (or hint), or the member in the playground. */
const who = (r: LogEntry) =>
  r.user_email ? html`${r.user_email} <span class="hint">(playground)</span>` : (r.key_name ?? r.key_hint ?? '—');

/** A filter's text: control characters (NUL, which PostgreSQL text cannot hold) dropped. */
const text = (v: unknown, max: number): string =>
  typeof v === 'string'
    ? v
        .replace(/[\u0000-\u001f]/g, '')
        .trim()
        .slice(0, max)
    : '';

export async function logRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  app.get<{ Querystring: Record<string, unknown> }>('/account/logs', async (req, reply) => {
    const m = memberOf(req);
    const filter: LogFilter = {
      status: text(req.query.status, 3),
      route: text(req.query.route, 100),
      requestId: text(req.query.request_id, 40),
    };
    const rows = await listRequestLogs(deps.pool, m.workspaceId, filter, deps.clock.now(), LOG_PAGE_ROWS);
    const statusClass = (s: number) => (s < 300 ? 'ok' : s < 500 ? 'warn' : 'err');
    const body = html`<form method="get" action="/account/logs" class="card" role="search">
        <div class="row">
          <div class="field">
            <label for="f-status">Status</label>
            <input
              id="f-status"
              name="status"
              type="text"
              maxlength="3"
              placeholder="404 or 4xx"
              value="${filter.status}"
            />
          </div>
          <div class="field">
            <label for="f-route">Route</label>
            <input
              id="f-route"
              name="route"
              type="text"
              maxlength="100"
              placeholder="/entities/search"
              value="${filter.route}"
            />
          </div>
          <div class="field">
            <label for="f-id">Request id</label>
            <input
              id="f-id"
              name="request_id"
              type="text"
              maxlength="40"
              placeholder="req_..."
              value="${filter.requestId}"
            />
          </div>
          <div class="field">
            <button type="submit">Filter</button> <a class="button secondary" href="/account/logs">Clear</a>
          </div>
        </div>
      </form>
      <div class="card">
        <div class="table-wrap" role="region" aria-label="Request log" tabindex="0">
          <table class="compact">
            <thead>
              <tr>
                <th>Time (UTC)</th>
                <th>Request id</th>
                <th>Route</th>
                <th>Status</th>
                <th>By</th>
                <th class="num">ms</th>
                <th class="num">Credits</th>
              </tr>
            </thead>
            <tbody>
              ${
                rows.length
                  ? rows.map(
                      (r) =>
                        html`<tr>
                          <td class="nowrap">${r.at}</td>
                          <td class="mono">${r.request_id}</td>
                          <td class="mono">${r.method} ${r.route}</td>
                          <td><span class="pill ${statusClass(r.status)}">${r.status}</span></td>
                          <td>
                            ${who(r)}
                            <span class="hint">${r.surface}</span>
                          </td>
                          <td class="num">${r.duration_ms}</td>
                          <td class="num">${num(r.credits)}</td>
                        </tr>`,
                    )
                  : html`<tr>
                      <td colspan="7" class="empty">No request matches.</td>
                    </tr>`
              }
            </tbody>
          </table>
        </div>
        <p class="hint">
          The last ${REQUEST_LOG_RETENTION_DAYS} days, newest first, at most ${LOG_PAGE_ROWS} rows; a request appears
          within a second.
        </p>
      </div>`;
    return render(req, reply, deps, m, { title: 'Request log', section: '/account/logs', body });
  });
}
