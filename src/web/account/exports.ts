// The Exports page (docs/web.md, "Exports"): the workspace's exports with their progress and, once completed, a
// Download button. The file is sent here, with the session (the same parts the API's signed link streams), so a
// member downloads without a key. Exports are created through the API (docs/exports.md).
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { exportFile } from '../../exports/download.js';
import { getExport, listExports, type Export } from '../../exports/jobs.js';
import type { WebDeps } from '../context.js';
import { html, num, when, type Html } from '../html.js';
import { askedOffset, pager } from '../pager.js';
import { memberOf, render } from './shared.js';

/** Exports on one page; the rest are a link away. */
const EXPORTS_SHOWN = 25;
const PAGE = '/account/exports' as const;
const EXPORT_ID = /^ex_[0-9a-f]{24}$/;

const STATUS_PILL: Record<Export['status'], string> = {
  queued: 'warn',
  running: 'warn',
  completed: 'ok',
  failed: 'err',
  cancelled: '',
};

/** What the export holds, as a person reads it: the list and its parameters. */
const described = (e: Export): string =>
  `${e.operation}${Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`;

function exportRow(e: Export): Html {
  const total = e.total_rows ?? 0;
  return html`<tr data-export="${e.id}" data-status="${e.status}">
    <td><span class="mono">${described(e)}</span><br /><span class="hint mono">${e.id}</span></td>
    <td data-label="Format">${e.format.toUpperCase()}</td>
    <td>
      <span class="pill ${STATUS_PILL[e.status]}">${e.status}</span>
      ${e.error ? html`<br /><span class="hint field-error">${e.error.message}</span>` : ''}
    </td>
    <td class="job-progress">
      <progress max="${Math.max(1, total)}" value="${e.done_rows}" aria-label="Rows written of ${e.id}"></progress>
      <span class="hint">${num(e.done_rows)} of ${e.total_rows === null ? '?' : num(total)} rows</span>
    </td>
    <td class="num" data-label="Credits">${num(e.credits)}</td>
    <td class="nowrap" data-label="Created">${when(e.created_at)}</td>
    <td>
      ${
        e.status === 'completed'
          ? html`<a class="button small" href="${PAGE}/${e.id}/download" download>Download</a>
              <span class="hint">${num(Math.ceil(e.bytes / 1024))} KB</span>`
          : ''
      }
    </td>
  </tr>`;
}

function exportsBody(v: { rows: Export[]; total: number; offset: number }): Html {
  return html`<div class="card" id="exports">
    <h2>Your exports</h2>
    <p class="hint">
      A list's whole result set as CSV, JSON lines or Parquet, written in the background: create one with
      <code>POST /v1/exports</code> (see the API reference). 1 credit per started 1,000 rows; files are kept 7 days.
    </p>
    <div class="table-wrap" role="region" aria-label="Exports" tabindex="0">
      <table class="compact jobs">
        <thead>
          <tr>
            <th>List</th>
            <th>Format</th>
            <th>Status</th>
            <th>Progress</th>
            <th class="num">Credits</th>
            <th>Created</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${
            v.rows.length
              ? v.rows.map(exportRow)
              : html`<tr>
                  <td colspan="7" class="empty">No export yet.</td>
                </tr>`
          }
        </tbody>
      </table>
    </div>
    ${pager({
      ...v,
      shown: EXPORTS_SHOWN,
      href: (offset) => `${PAGE}?offset=${offset}`,
      order: 'newest first',
      labels: ['Newer', 'Older'],
    })}
  </div>`;
}

export async function exportsRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool } = deps;
  app.get(PAGE, async (req, reply) => {
    const m = memberOf(req);
    const offset = askedOffset(req);
    const { exports, total } = await listExports(pool, m.workspaceId, { limit: EXPORTS_SHOWN, offset });
    return render(req, reply, deps, m, {
      title: 'Exports',
      section: PAGE,
      body: exportsBody({ rows: exports, total, offset }),
    });
  });

  app.get<{ Params: { id: string } }>(`${PAGE}/:id/download`, async (req, reply) => {
    const m = memberOf(req);
    const found = EXPORT_ID.test(req.params.id) ? await getExport(pool, m.workspaceId, req.params.id) : null;
    const file = found ? await exportFile(pool, found.id) : null;
    if (!file) return reply.redirect(PAGE, 303);
    return reply
      .header('cache-control', 'no-store')
      .header('content-length', String(file.bytes))
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .type(file.contentType)
      .send(Readable.from(file.parts));
  });
}
