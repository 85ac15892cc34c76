// The Matching page's markup (docs/web.md, "Matching"): the upload card (its column mapping filled in by
// matching.js from the chosen file's first line) and the workspace's jobs, each with its progress, a Cancel
// button while it runs and its results' downloads once it has rows done.
import type { FastifyRequest } from 'fastify';
import type { MatchField, MatchJob } from '../../matching/jobs.js';
import { csrfToken } from '../context.js';
import { html, num, when, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import { pager } from '../pager.js';

/** What the page shows: the balance and a page of the jobs (`offset` the first shown). */
export interface MatchingView {
  readonly balance: number;
  readonly jobs: { readonly rows: MatchJob[]; readonly total: number; readonly offset: number; readonly shown: number };
}

/** The mapping's fields as the page names them, in the order shown; the name is required. */
const FIELD_LABELS: Record<MatchField, string> = {
  name: 'Name (required)',
  city: 'City',
  zip: 'ZIP',
  address: 'Street address',
  officer: 'Officer',
  entity_type: 'Entity type',
  document_number: 'Document number',
  reference: 'Your reference',
};

const STATUS_PILL: Record<MatchJob['status'], string> = {
  queued: 'warn',
  running: 'warn',
  completed: 'ok',
  failed: 'err',
  cancelled: '',
};

export const isRunning = (j: MatchJob): boolean => j.status === 'queued' || j.status === 'running';

function uploadCard(req: FastifyRequest, v: MatchingView): Html {
  const selects = (Object.keys(FIELD_LABELS) as MatchField[]).map(
    (f) =>
      html`<div class="field">
        <label for="map-${f}">${FIELD_LABELS[f]}</label>
        <select id="map-${f}" data-field="${f}" ${f === 'name' ? html` required` : ''}>
          <option value="">(none)</option>
        </select>
      </div>`,
  );
  return html`<div class="card">
    <h2>Match a list</h2>
    <p>
      Upload a CSV file with a header row, or JSON lines, of up to 1,000,000 rows: each row is tied to the registry's
      best entity with a score and a verdict, in the background.
    </p>
    <noscript>
      <div class="notice warn">
        Uploading from this page needs JavaScript. The list of jobs below works without it, and the API takes files too:
        <code>POST /v1/match/jobs</code> (<a href="/docs">docs</a>).
      </div>
    </noscript>
    <form id="match-upload" data-csrf="${csrfToken(req)}" novalidate>
      <div class="field">
        <label for="match-file">File (CSV or JSON lines)</label>
        <input id="match-file" type="file" accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson" />
        <p class="hint" id="match-file-hint">The file goes to the service as it is read from disk.</p>
      </div>
      <fieldset id="match-mapping" hidden>
        <legend>Which column holds each field</legend>
        <p class="hint">Filled in from the file's header where a column's name says; choose the others.</p>
        <div class="grid map-grid">${selects}</div>
      </fieldset>
      <p id="match-cost" class="hint" hidden></p>
      <div class="row">
        <button type="submit" id="match-start" disabled>Start matching</button>
        <span class="hint"
          >Balance: <strong id="match-balance">${num(v.balance)}</strong> credits. One credit per row, charged as rows
          are matched; a job stops when the balance runs out.</span
        >
      </div>
      <div id="match-error" class="notice error" role="alert" hidden></div>
      <p id="match-status" class="hint" role="status"></p>
    </form>
  </div>`;
}

function actions(req: FastifyRequest, j: MatchJob): Html {
  const label = j.file_name ?? j.id;
  const results = (format: 'csv' | 'jsonl', text: string) =>
    html`<a
      class="button small secondary"
      href="/account/matching/jobs/${j.id}/results?format=${format}"
      aria-label="Download ${text} of ${label}"
      download
      >${text}</a
    >`;
  return html`<div class="job-actions">
    ${
      isRunning(j)
        ? html`<form method="post" action="/account/matching/jobs/${j.id}/cancel" class="inline">
            ${csrfField(req)}
            <button type="submit" class="danger small" aria-label="Cancel ${label}">Cancel</button>
          </form>`
        : ''
    }
    <span class="job-downloads" data-downloads${j.done_rows > 0 ? '' : html` hidden`}>
      <span class="hint">Download</span> ${results('csv', 'CSV')} ${results('jsonl', 'JSON lines')}
    </span>
  </div>`;
}

function jobRow(req: FastifyRequest, j: MatchJob): Html {
  const name = j.file_name ?? '(no file name)';
  return html`<tr data-job="${j.id}" data-status="${j.status}">
    <td><span class="job-file">${name}</span><br /><span class="hint mono">${j.id}</span></td>
    <td>
      <span class="pill ${STATUS_PILL[j.status]}" data-part="status">${j.status}</span>
      ${j.error ? html`<br /><span class="hint field-error">${j.error.message}</span>` : ''}
    </td>
    <td class="job-progress">
      <progress max="${j.total_rows}" value="${j.done_rows}" aria-label="Rows done of ${name}"></progress>
      <span class="hint"
        ><span data-part="done">${num(j.done_rows)}</span> of ${num(j.total_rows)}
        row${j.total_rows === 1 ? '' : 's'}</span
      >
    </td>
    <td class="num" data-label="Matched" data-part="matched">${num(j.matched_rows)}</td>
    <td class="nowrap" data-label="Created">${when(j.created_at)}</td>
    <td>${actions(req, j)}</td>
  </tr>`;
}

/** Links to the newer and older pages of jobs, when there are more than one page shows. */
const jobPages = (p: MatchingView['jobs']): Html =>
  pager({
    ...p,
    href: (offset) => `/account/matching?offset=${offset}#jobs`,
    order: 'newest first',
    labels: ['Newer', 'Older'],
  });

function jobsCard(req: FastifyRequest, v: MatchingView): Html {
  const rows = v.jobs.rows;
  return html`<div class="card" id="jobs">
    <h2>Jobs</h2>
    <div class="table-wrap" role="region" aria-label="Match jobs" tabindex="0">
      <table class="compact jobs">
        <thead>
          <tr>
            <th>File</th>
            <th>Status</th>
            <th>Progress</th>
            <th class="num">Matched</th>
            <th>Created</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${
            rows.length
              ? rows.map((j) => jobRow(req, j))
              : html`<tr>
                  <td colspan="6" class="empty">No job yet: upload a list above.</td>
                </tr>`
          }
        </tbody>
      </table>
    </div>
    ${jobPages(v.jobs)}
    <p class="sr-only" role="status" id="jobs-status"></p>
    <p class="hint">
      A running job's progress moves on its own while this page is open. The results hold every row of the file in its
      order, with the match, its entity, score and grades; rows not yet matched are blank.
    </p>
  </div>`;
}

export const matchingBody = (req: FastifyRequest, v: MatchingView): Html =>
  html`${uploadCard(req, v)} ${jobsCard(req, v)}`;
