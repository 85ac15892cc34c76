// Monitoring at a glance (docs/webhooks.md): the workspace's webhook endpoints with their latest delivery
// attempts, watched entities, saved searches and latest events with each delivery's state, against the plan's
// limits. Changes are made
// through the API (/v1/webhooks, /v1/watches), whose secrets are shown once to the caller that made them.
import type { FastifyInstance } from 'fastify';
import { PLANS, type PlanSlug } from '../../../accounts/catalog.js';
import { listAttempts } from '../../../monitoring/log.js';
import { listEndpoints, listEvents, listSavedSearches, listWatches } from '../../../monitoring/store.js';
import type { WebDeps } from '../context.js';
import { html, num, when, type Html } from '../html.js';
import { member, render, workspaceOf } from './shared.js';

/** Latest events shown: a week of a busy watchlist; the API pages through the rest. */
export const MONITORING_EVENTS_SHOWN = 25;
/** Latest attempts shown per endpoint: enough to see whether it answers; the API pages through the log. */
export const ATTEMPTS_SHOWN = 5;

const table = (head: string[], rows: Html[], empty: string): Html =>
  html`<div class="table-wrap">
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

/** The plans that include monitoring, in the catalog's order. */
const monitoringPlans = (): string =>
  (Object.keys(PLANS) as PlanSlug[])
    .filter((p) => PLANS[p].monitoring)
    .map((p) => PLANS[p].name)
    .join(', ');

export async function monitoringRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  app.get('/account/monitoring', async (req, reply) => {
    const m = member(req, reply);
    if (!m) return reply;
    const ws = await workspaceOf(deps, m);
    const limits = PLANS[ws.plan].monitoring;
    if (!limits) {
      const body = html`<div class="card">
        <h2>Not on this plan</h2>
        <p>
          Watches, saved searches and signed webhooks come with ${monitoringPlans()}. See
          <a href="/account/billing">Billing</a> to change plan, and <a href="/docs">the docs</a> for what they send.
        </p>
      </div>`;
      return render(req, reply, deps, m, { title: 'Monitoring', section: '/account/monitoring', body });
    }
    const [endpoints, watches, searches, events] = await Promise.all([
      listEndpoints(deps.pool, m.workspaceId),
      listWatches(deps.pool, m.workspaceId),
      listSavedSearches(deps.pool, m.workspaceId),
      listEvents(deps.pool, m.workspaceId, { limit: MONITORING_EVENTS_SHOWN, offset: 0 }),
    ]);
    const urlOf = new Map(endpoints.map((e) => [e.id, e.url]));
    const attempts = await Promise.all(
      endpoints.map(async (e) => ({
        url: e.url,
        rows: (await listAttempts(deps.pool, m.workspaceId, e.id, { limit: ATTEMPTS_SHOWN, offset: 0 })).rows,
      })),
    );
    const body = html`<div class="stats">
        <div class="stat">
          <div class="label">Webhook endpoints</div>
          <div class="value">${num(endpoints.length)}</div>
          <div class="sub">of ${num(limits.endpoints)} on this plan</div>
        </div>
        <div class="stat">
          <div class="label">Watched entities</div>
          <div class="value">${num(watches.length)}</div>
          <div class="sub">of ${num(limits.watches)} on this plan</div>
        </div>
        <div class="stat">
          <div class="label">Saved searches</div>
          <div class="value">${num(searches.length)}</div>
          <div class="sub">of ${num(limits.savedSearches)} on this plan</div>
        </div>
      </div>
      <div class="card">
        <h2>Webhook endpoints</h2>
        ${table(
          ['URL', 'Events', 'State', 'Since'],
          endpoints.map(
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
              </tr>`,
          ),
          'No endpoint yet: POST /v1/webhooks registers one.',
        )}
      </div>
      <div class="card">
        <h2>Latest delivery attempts</h2>
        ${table(
          ['Time (UTC)', 'Endpoint', 'Event', 'Answer', 'Latency', 'Response'],
          attempts.flatMap((e) =>
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
          The ${ATTEMPTS_SHOWN} latest per endpoint; GET /v1/webhooks/{id}/deliveries pages through 30 days.
        </p>
      </div>
      <div class="card">
        <h2>Watched entities</h2>
        ${table(
          ['Document number', 'Name', 'Since'],
          watches.map(
            (w) =>
              html`<tr>
                <td class="mono">${w.document_number}</td>
                <td>${w.name ?? '—'}</td>
                <td>${when(w.created_at)}</td>
              </tr>`,
          ),
          'No watched entity: POST /v1/watches/entities adds one.',
        )}
      </div>
      <div class="card">
        <h2>Saved searches</h2>
        ${table(
          ['Name', 'Parameters'],
          searches.map(
            (s) =>
              html`<tr>
                <td>${s.name}</td>
                <td class="mono">${JSON.stringify(s.params)}</td>
              </tr>`,
          ),
          'No saved search: POST /v1/watches/searches adds one.',
        )}
      </div>
      <div class="card">
        <h2>Latest events</h2>
        ${table(
          ['Time (UTC)', 'Event', 'Type', 'Deliveries'],
          events.rows.map(
            (e) =>
              html`<tr>
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
              </tr>`,
          ),
          'No event yet: they appear as the daily imports change what you watch.',
        )}
        <p class="hint">
          ${events.rows.length} of ${num(events.total)}, newest first. Replay one by id with POST
          /v1/webhooks/events/{id}/replay.
        </p>
      </div>`;
    return render(req, reply, deps, m, { title: 'Monitoring', section: '/account/monitoring', body });
  });
}
