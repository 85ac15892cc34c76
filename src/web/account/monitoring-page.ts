// The Monitoring page's markup (docs/web.md, "Monitoring"): the plan's limits, the forms that register an
// endpoint, watch an entity and save a search, each endpoint's, watch's and search's own buttons, the latest
// delivery attempts and events. A secret appears only on the answer that made it.
import type { FastifyRequest } from 'fastify';
import type { MonitoringLimits } from '../../accounts/catalog.js';
import { EVENT_TYPES } from '../../monitoring/events.js';
import type { LoggedAttempt } from '../../monitoring/log.js';
import type { SavedSearch } from '../../monitoring/matches.js';
import type { StoredEvent } from '../../monitoring/event-log.js';
import type { Endpoint, Watch } from '../../monitoring/store.js';
import type { FieldErrors } from '../forms.js';
import { html, num, when, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import { pager } from '../pager.js';

/** What the page shows of a workspace. */
export interface MonitoringView {
  readonly limits: MonitoringLimits;
  readonly endpoints: Endpoint[];
  readonly attempts: Array<{ url: string; rows: LoggedAttempt[] }>;
  /** A page of the watches (`offset` the first shown) and how many there are. */
  readonly watches: { rows: Watch[]; total: number; offset: number; shown: number };
  readonly searches: SavedSearch[];
  readonly events: { rows: StoredEvent[]; total: number };
  readonly attemptsShown: number;
}

/** The last form's problems (keyed `form.field`), what it sent back, and a secret just made. */
export interface FormState {
  readonly errors?: FieldErrors;
  readonly sent?: Record<string, string>;
  readonly secret?: { readonly url: string; readonly secret: string };
}

/** The saved-search form's filters: the entity search's, as /entities/search names them. */
export const SEARCH_FIELDS = [
  ['name', 'Entity name', 'acme holdings', 'text'],
  ['principal_city', 'Principal city', 'MIAMI', 'text'],
  ['entity_type', 'Entity types', 'FLAL, DOMP', 'text'],
  ['officer_name', 'Officer name', 'maria garcia', 'text'],
  ['ra_name', 'Registered agent', 'northwest registered', 'text'],
  ['filed_after', 'Filed on or after', '2026-01-01', 'date'],
] as const;

const STATUS_CHOICES = ['', 'active', 'inactive'] as const;

/** A table in a labelled scroll box, a keyboard stop on narrow screens. */
const table = (label: string, head: string[], rows: Html[], empty: string): Html =>
  html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0">
    <table class="compact">
      <thead>
        <tr>
          ${head.map((h) => html`<th>${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${
          rows.length
            ? rows
            : html`<tr>
                <td colspan="${head.length}" class="empty">${empty}</td>
              </tr>`
        }
      </tbody>
    </table>
  </div>`;

const stateClass = (s: string) => (s === 'delivered' ? 'ok' : s === 'failed' ? 'err' : 'warn');

/** A one-button form posting to `action`. */
const button = (req: FastifyRequest, action: string, label: string, aria: string, danger = false): Html =>
  html`<form method="post" action="${action}" class="inline">
    ${csrfField(req)}
    <button type="submit" class="small ${danger ? 'danger' : 'secondary'}" aria-label="${aria}">${label}</button>
  </form>`;

function formParts(req: FastifyRequest, state: FormState) {
  const error = (key: string): Html | '' =>
    state.errors?.[key] ? html`<p class="hint field-error" role="alert">${state.errors[key]}</p>` : '';
  const sent = (key: string): string => state.sent?.[key] ?? '';
  const text = (form: string, field: string, label: string, placeholder: string, type = 'text'): Html =>
    html`<div class="field">
      <label for="${form}-${field}">${label}</label>
      <input
        id="${form}-${field}"
        name="${field}"
        type="${type}"
        value="${sent(`${form}.${field}`)}"
        placeholder="${placeholder}"
      />${error(`${form}.${field}`)}
    </div>`;
  return { error, sent, text, csrf: csrfField(req) };
}

function stats(v: MonitoringView): Html {
  const stat = (label: string, n: number, limit: number) =>
    html`<div class="stat">
      <div class="label">${label}</div>
      <div class="value">${num(n)}</div>
      <div class="sub">of ${num(limit)} on this plan</div>
    </div>`;
  return html`<div class="stats">
    ${stat('Webhook endpoints', v.endpoints.length, v.limits.endpoints)}
    ${stat('Watched entities', v.watches.total, v.limits.watches)}
    ${stat('Saved searches', v.searches.length, v.limits.savedSearches)}
  </div>`;
}

function endpointsCard(req: FastifyRequest, v: MonitoringView, state: FormState): Html {
  const f = formParts(req, state);
  const chosen = state.sent?.['endpoint.event_types']?.split(',');
  const fresh = state.secret
    ? html`<div class="card" id="new-secret-card">
        <h2>Signing secret of ${state.secret.url}</h2>
        <p><strong>Copy it now: it is shown only this once.</strong> Verify each delivery's signature with it.</p>
        <p class="key-once mono" id="new-secret">${state.secret.secret}</p>
      </div>`
    : '';
  const actions = (e: Endpoint) => {
    const at = `/account/monitoring/webhooks/${e.id}`;
    return html`${
      e.paused
        ? button(req, `${at}/resume`, 'Resume', `Resume ${e.url}`)
        : button(req, `${at}/pause`, 'Pause', `Pause ${e.url}`)
    }
    ${button(req, `${at}/test`, 'Send test', `Send a test event to ${e.url}`)}
    ${button(req, `${at}/rotate`, 'Rotate secret', `Rotate the secret of ${e.url}`)}
    ${button(req, `${at}/delete`, 'Delete', `Delete ${e.url}`, true)}`;
  };
  return html`${fresh}
    <div class="card">
      <h2>Webhook endpoints</h2>
      ${table(
        'Webhook endpoints',
        ['URL', 'Events', 'State', 'Since', ''],
        v.endpoints.map(
          (e) =>
            html`<tr>
              <td class="mono">${e.url}</td>
              <td>${e.event_types.join(', ')}</td>
              <td>
                ${
                  e.paused
                    ? html`<span class="pill err">paused</span> <span class="hint">${e.paused_reason ?? ''}</span>`
                    : html`<span class="pill ok">active</span>`
                }
              </td>
              <td>${when(e.created_at)}</td>
              <td class="nowrap">${actions(e)}</td>
            </tr>`,
        ),
        'No endpoint yet.',
      )}
      <form method="post" action="/account/monitoring/webhooks" class="add" novalidate>
        ${f.csrf} ${f.text('endpoint', 'url', 'Endpoint URL', 'https://hooks.example.com/registry', 'url')}
        <fieldset class="field">
          <legend>Events</legend>
          <div class="radios">
            ${EVENT_TYPES.map(
              (t) =>
                html`<label
                  ><input
                    type="checkbox"
                    name="event_types"
                    value="${t}"
                    ${!chosen || chosen.includes(t) ? html` checked` : ''}
                  />
                  ${t}</label
                >`,
            )}
          </div>
          ${f.error('endpoint.event_types')}
        </fieldset>
        <p class="hint">An https:// URL on a public address. Its signing secret is shown once, on the next page.</p>
        <div class="field"><button type="submit">Register endpoint</button></div>
        ${f.error('endpoint.form')}
      </form>
    </div>`;
}

function attemptsCard(v: MonitoringView): Html {
  return html`<div class="card">
    <h2>Latest delivery attempts</h2>
    ${table(
      'Latest delivery attempts',
      ['Time (UTC)', 'Endpoint', 'Event', 'Answer', 'Latency', 'Response'],
      v.attempts.flatMap((e) =>
        e.rows.map(
          (a) =>
            html`<tr>
              <td class="nowrap">${when(a.attempted_at)}</td>
              <td class="mono">${e.url}</td>
              <td class="mono">${a.event_id} #${a.attempt}</td>
              <td>
                <span class="pill ${a.error ? 'err' : 'ok'}">${a.status_code ?? 'none'}</span>
                <span class="hint">${a.error ?? ''}</span>
              </td>
              <td class="nowrap">${num(a.latency_ms)} ms</td>
              <td class="mono">${a.response_excerpt ?? ''}</td>
            </tr>`,
        ),
      ),
      'No attempt in the last 30 days.',
    )}
    <p class="hint">
      The ${v.attemptsShown} latest per endpoint; GET /v1/webhooks/{id}/deliveries pages through 30 days.
    </p>
  </div>`;
}

/** Links to the previous and next pages of watches, when there are more than one page shows. */
const watchPages = (w: MonitoringView['watches']): Html =>
  pager({
    ...w,
    href: (offset) => `/account/monitoring?watches_offset=${offset}#watches`,
    order: 'by document number',
    labels: ['Previous', 'Next'],
  });

function watchesCard(req: FastifyRequest, v: MonitoringView, state: FormState): Html {
  const f = formParts(req, state);
  return html`<div class="card" id="watches">
    <h2>Watched entities</h2>
    ${table(
      'Watched entities',
      ['Document number', 'Name', 'Since', ''],
      v.watches.rows.map(
        (w) =>
          html`<tr>
            <td class="mono">${w.document_number}</td>
            <td>${w.name ?? '—'}</td>
            <td>${when(w.created_at)}</td>
            <td>
              ${button(
                req,
                `/account/monitoring/watches/${w.document_number}/remove`,
                'Stop watching',
                `Stop watching ${w.document_number}`,
                true,
              )}
            </td>
          </tr>`,
      ),
      'No watched entity yet.',
    )}
    ${watchPages(v.watches)}
    <form method="post" action="/account/monitoring/watches" class="add" novalidate>
      ${f.csrf}
      <div class="row">
        ${f.text('watch', 'document_number', 'Document number', 'L26000012345')}
        <div class="field"><button type="submit">Watch entity</button></div>
      </div>
      ${f.error('watch.form')}
    </form>
  </div>`;
}

function searchesCard(req: FastifyRequest, v: MonitoringView, state: FormState): Html {
  const f = formParts(req, state);
  const status = f.sent('search.status');
  return html`<div class="card">
    <h2>Saved searches</h2>
    ${table(
      'Saved searches',
      ['Name', 'Filters', ''],
      v.searches.map(
        (s) =>
          html`<tr>
            <td>${s.name}</td>
            <td class="mono">${JSON.stringify(s.params)}</td>
            <td>${button(req, `/account/monitoring/searches/${s.id}/delete`, 'Delete', `Delete ${s.name}`, true)}</td>
          </tr>`,
      ),
      'No saved search yet.',
    )}
    <form method="post" action="/account/monitoring/searches" class="add" novalidate>
      ${f.csrf}
      <div class="row">${f.text('search', 'label', 'Name of this search', 'New LLCs in Miami')}</div>
      <div class="row">
        ${SEARCH_FIELDS.map(([field, label, example, type]) => f.text('search', field, label, example, type))}
        <div class="field">
          <label for="search-status">Status</label>
          <select id="search-status" name="status">
            ${STATUS_CHOICES.map(
              (s) => html`<option value="${s}" ${s === status ? html` selected` : ''}>${s || 'any'}</option>`,
            )}
          </select>
          ${f.error('search.status')}
        </div>
      </div>
      <p class="hint">
        Each filter as the entity search takes it; empty ones are left out. Every import sends saved_search.match for an
        entity that newly matches them all.
      </p>
      <div class="field"><button type="submit">Save search</button></div>
      ${f.error('search.form')}
    </form>
  </div>`;
}

function eventsCard(req: FastifyRequest, v: MonitoringView): Html {
  const urlOf = new Map(v.endpoints.map((e) => [e.id, e.url]));
  return html`<div class="card">
    <h2>Latest events</h2>
    ${table(
      'Latest events',
      ['#', 'Time (UTC)', 'Event', 'Type', 'Deliveries', ''],
      v.events.rows.map(
        (e) =>
          html`<tr>
            <td class="num">${num(e.sequence)}</td>
            <td class="nowrap">${when(e.created_at)}</td>
            <td class="mono">${e.id}</td>
            <td>${e.type}</td>
            <td>
              ${
                e.deliveries.length
                  ? e.deliveries.map(
                      (d) =>
                        html`<span class="pill ${stateClass(d.status)}">${d.status}</span>
                          <span class="hint"
                            >${urlOf.get(d.endpoint_id) ?? d.endpoint_id}, ${d.attempts}
                            attempt${d.attempts === 1 ? '' : 's'}</span
                          ><br />`,
                    )
                  : html`<span class="hint">no endpoint takes this type</span>`
              }
            </td>
            <td>${button(req, `/account/monitoring/events/${e.id}/replay`, 'Replay', `Replay ${e.id}`)}</td>
          </tr>`,
      ),
      'No event yet: they appear as the daily imports change what you watch.',
    )}
    <p class="hint">${v.events.rows.length} of ${num(v.events.total)}, newest first.</p>
  </div>`;
}

export const monitoringBody = (req: FastifyRequest, v: MonitoringView, state: FormState = {}): Html =>
  html`${stats(v)} ${endpointsCard(req, v, state)} ${attemptsCard(v)} ${watchesCard(req, v, state)}
  ${searchesCard(req, v, state)} ${eventsCard(req, v)}`;
