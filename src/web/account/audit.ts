// The audit log: who changed the workspace's keys, members, billing and webhooks, newest first, a page at a time.
// Every member sees it (members manage keys and webhooks themselves; the owner's changes are theirs to see too).
import type { FastifyInstance } from 'fastify';
import { listAudit, type AuditEntry } from '../../accounts/audit.js';
import type { WebDeps } from '../context.js';
import { html, when, type Html } from '../html.js';
import { memberOf, render } from './shared.js';

/** Entries a page shows. */
const AUDIT_PAGE_ROWS = 50;

/** What an action is called on the page. */
const ACTIONS: Record<AuditEntry['action'], string> = {
  'key.create': 'created a key',
  'key.rename': 'renamed a key',
  'key.roll': 'rolled a key',
  'key.revoke': 'revoked a key',
  'reconcile.create': 'created a reconciliation credential',
  'reconcile.revoke': 'revoked a reconciliation credential',
  'member.invite': 'invited',
  'member.invitation_revoke': 'revoked the invitation of',
  'member.accept': 'accepted an invitation',
  'member.remove': 'removed the member',
  'billing.pack_bought': 'bought a credit pack',
  'billing.plan_change': 'changed the plan to',
  'billing.cancel': 'cancelled the subscription of the plan',
  'webhook.add': 'added a webhook endpoint',
  'webhook.pause': 'paused a webhook endpoint',
  'webhook.resume': 'resumed a webhook endpoint',
  'webhook.rotate': "rotated a webhook endpoint's secret",
  'webhook.delete': 'deleted a webhook endpoint',
  'workspace.delete': 'deleted the workspace',
};

function actor(e: AuditEntry): Html | string {
  switch (e.actor_kind) {
    case 'user':
      return e.actor_label ?? e.actor_id ?? 'a former user';
    case 'key':
      return html`API key ${e.actor_label ?? e.actor_id}`;
    case 'operator':
      return 'the operator (command line)';
    case 'system':
      return 'the service (payment confirmed)';
  }
}

const row = (e: AuditEntry) =>
  html`<tr>
    <td class="nowrap">${when(e.at)}</td>
    <td>${actor(e)}</td>
    <td>${ACTIONS[e.action] ?? e.action}</td>
    <td class="mono">${e.target ?? ''}</td>
    <td>${e.detail ?? ''}</td>
    <td class="mono">${e.client_ip ?? '—'}</td>
  </tr>`;

const pageLink = (href: string, label: string) => html`<a class="button secondary small" href="${href}">${label}</a>`;

export async function auditRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  app.get<{ Querystring: Record<string, unknown> }>('/account/audit', async (req, reply) => {
    const m = memberOf(req);
    const before = req.query.before;
    if (before !== undefined && (typeof before !== 'string' || !/^[1-9]\d{0,17}$/.test(before)))
      return render(req, reply, deps, m, {
        title: 'Audit log',
        section: '/account/audit',
        status: 400,
        body: html`<div class="card">
          <p role="alert">This page link is malformed.</p>
          <p><a class="button secondary" href="/account/audit">The newest entries</a></p>
        </div>`,
      });
    const entries = await listAudit(deps.pool, m.workspaceId, before ? Number(before) : null, AUDIT_PAGE_ROWS + 1);
    const more = entries.length > AUDIT_PAGE_ROWS;
    const shown = entries.slice(0, AUDIT_PAGE_ROWS);
    const body = html`<div class="card">
      <div class="table-wrap" role="region" aria-label="Audit log" tabindex="0">
        <table class="compact">
          <thead>
            <tr>
              <th>Time (UTC)</th>
              <th>Who</th>
              <th>Did</th>
              <th>What</th>
              <th>Detail</th>
              <th>From</th>
            </tr>
          </thead>
          <tbody>
            ${
              shown.length
                ? shown.map(row)
                : html`<tr>
                    <td colspan="6" class="empty">Nothing recorded yet.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      <nav class="row" aria-label="Pages">
        ${before ? pageLink('/account/audit', 'Newest') : ''}
        ${more ? pageLink(`/account/audit?before=${shown.at(-1)!.id}`, 'Older') : ''}
      </nav>
      <p class="hint">
        Changes to keys, members, billing and webhook endpoints, by a member in this app, an API key, the operator's
        command line, or a confirmed payment; kept as long as the workspace.
      </p>
    </div>`;
    return render(req, reply, deps, m, { title: 'Audit log', section: '/account/audit', body });
  });
}
