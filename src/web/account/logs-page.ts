// The request log's pages: the filter form (each refusal under its field), a page of rows with links to the newer and
// older pages and to the CSV of the filtered range, and one request in full.
import type { LogEntry, LogEntryDetail, LogPage } from '../../accounts/request-log-query.js';
import { MEMBERS_FILTER } from '../../accounts/request-log-query.js';
import type { ApiKeyInfo } from '../../accounts/workspaces.js';
import type { FieldErrors } from '../forms.js';
import { html, num, type Html } from '../html.js';
import { filterQuery, type FilterText } from './log-filters.js';

/** Who made a request: the key's name (or hint), or the member in the playground. */
const who = (r: LogEntry): Html | string =>
  r.user_email ? html`${r.user_email} <span class="hint">(playground)</span>` : (r.key_name ?? r.key_hint ?? '—');

const statusClass = (s: number) => (s < 300 ? 'ok' : s < 500 ? 'warn' : 'err');
/** A row's time as the table shows it: to the second (the cursor keeps the microseconds). */
const shown = (at: string) => `${at.slice(0, 10)} ${at.slice(11, 19)}`;

function field(id: string, label: string, input: Html, errors: FieldErrors, name: string): Html {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    ${input} ${errors[name] ? html`<p class="hint field-error" role="alert">${errors[name]}</p>` : ''}
  </div>`;
}

function filterForm(text: FilterText, errors: FieldErrors, keys: readonly ApiKeyInfo[]): Html {
  const input = (id: string, name: keyof FilterText, type: string, placeholder: string) =>
    html`<input id="${id}" name="${name}" type="${type}" placeholder="${placeholder}" value="${text[name]}" />`;
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${text.key === value ? ' selected' : ''}>${label}</option>`;
  const keySelect = html`<select id="f-key" name="key">
    ${option('', 'any')} ${option(MEMBERS_FILTER, 'members (playground)')}
    ${keys.map((k) => option(k.id, `${k.name ?? k.hint}${k.revoked_at ? ' (revoked)' : ''}`))}
  </select>`;
  return html`<form method="get" action="/account/logs" class="card" role="search">
    <div class="row">
      ${field('f-from', 'From (UTC day)', input('f-from', 'from', 'date', 'YYYY-MM-DD'), errors, 'from')}
      ${field('f-to', 'To (UTC day)', input('f-to', 'to', 'date', 'YYYY-MM-DD'), errors, 'to')}
      ${field('f-key', 'Key', keySelect, errors, 'key')}
      ${field('f-status', 'Status', input('f-status', 'status', 'text', '404 or 4xx'), errors, 'status')}
      ${field('f-route', 'Route', input('f-route', 'route', 'text', '/entities/search'), errors, 'route')}
      ${field('f-id', 'Request id', input('f-id', 'request_id', 'text', 'req_...'), errors, 'request_id')}
      <div class="field">
        <button type="submit">Filter</button> <a class="button secondary" href="/account/logs">Clear</a>
      </div>
    </div>
    ${errors.form ? html`<p class="hint field-error" role="alert">${errors.form}</p>` : ''}
  </form>`;
}

function row(r: LogEntry): Html {
  return html`<tr>
    <td class="nowrap">${shown(r.at)}</td>
    <td class="mono"><a href="/account/logs/${r.request_id}">${r.request_id}</a></td>
    <td class="mono">${r.method} ${r.route}</td>
    <td><span class="pill ${statusClass(r.status)}">${r.status}</span></td>
    <td>${who(r)} <span class="hint">${r.surface}</span></td>
    <td class="num">${r.duration_ms}</td>
    <td class="num">${num(r.credits)}</td>
  </tr>`;
}

export interface LogsView {
  readonly text: FilterText;
  readonly errors: FieldErrors;
  readonly keys: readonly ApiKeyInfo[];
  /** Null when the filters were refused: no rows are read. */
  readonly page: LogPage | null;
  readonly retentionDays: number;
}

const pageLink = (href: string, label: string) => html`<a class="button secondary small" href="${href}">${label}</a>`;

export function logsBody(v: LogsView): Html {
  const p = v.page;
  const pager = p
    ? html`<nav class="row" aria-label="Pages">
        ${p.newer ? pageLink(`/account/logs${filterQuery(v.text, p.newer)}`, 'Newer') : ''}
        ${p.older ? pageLink(`/account/logs${filterQuery(v.text, p.older)}`, 'Older') : ''}
        ${pageLink(`/account/logs.csv${filterQuery(v.text)}`, 'Export CSV')}
      </nav>`
    : '';
  const rows = p?.rows ?? [];
  return html`${filterForm(v.text, v.errors, v.keys)}
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
                ? rows.map(row)
                : html`<tr>
                    <td colspan="7" class="empty">${p ? 'No request matches.' : 'Correct the filters above.'}</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      ${pager}
      <p class="hint">
        The last ${v.retentionDays} days, newest first, a page at a time; a request appears within a second. The CSV
        holds every row the filters match.
      </p>
    </div>`;
}

export function logEntryBody(r: LogEntryDetail): Html {
  const by = r.user_email
    ? html`${r.user_email} (a member, in the playground)`
    : r.key_id?.startsWith('rcn_')
      ? html`a reconciliation credential <span class="mono">${r.key_id}</span>`
      : r.key_id
        ? html`${r.key_name ?? '(made by the command line)'} <span class="mono">${r.key_hint ?? r.key_id}</span>`
        : '—';
  const item = (term: string, value: Html | string | number) =>
    html`<dt>${term}</dt>
      <dd>${value}</dd>`;
  return html`<div class="card">
    <dl>
      ${item('Request id', html`<span class="mono">${r.request_id}</span>`)} ${item('Time (UTC)', r.at)}
      ${item('By', by)} ${item('Surface', r.surface === 'mcp' ? 'MCP' : 'REST')}
      ${item('Route', html`<span class="mono">${r.method} ${r.route}</span>`)}
      ${item('Parameters', "not recorded: the log keeps the route's pattern, never the query or the body")}
      ${item('Status', html`<span class="pill ${statusClass(r.status)}">${r.status}</span>`)}
      ${item('Credits', num(r.credits))} ${item('Latency', `${r.duration_ms} ms`)}
      ${item('Client address', r.client_ip ?? '—')}
    </dl>
    <p><a class="button secondary" href="/account/logs">Back to the log</a></p>
  </div>`;
}
