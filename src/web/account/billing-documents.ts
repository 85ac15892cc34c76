// Payment history: every receipt, invoice and credit note of the workspace, listed on the billing page,
// each viewable as HTML and downloadable as PDF by any member. Another workspace's document is a 404,
// as is a document that does not exist. docs/web.md, "Pages".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatUsd } from '../../accounts/catalog.js';
import { getDocument, isDocumentId, type BillingDocument } from '../../billing/documents.js';
import type { WebDeps } from '../context.js';
import { html, type Html } from '../html.js';
import { DOCUMENT_TITLES, documentPdf, partyLines } from './document-pdf.js';
import { memberOf, render, type Member } from './shared.js';

const day = (iso: string): string => iso.slice(0, 10);

export function documentsSection(docs: readonly BillingDocument[]): Html {
  if (docs.length === 0)
    return html`<div class="card">
      <h2>Payment history</h2>
      <p class="empty">No payments yet: each pack, plan payment, overage invoice and refund is listed here.</p>
    </div>`;
  return html`<div class="card">
    <h2>Payment history</h2>
    <div class="table-wrap" role="region" aria-label="Payment history" tabindex="0">
      <table>
        <thead>
          <tr>
            <th>Number</th>
            <th>Date</th>
            <th>Document</th>
            <th>For</th>
            <th class="num">Amount</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${docs.map(
            (d) =>
              html`<tr>
                <td class="mono"><a href="/account/billing/documents/${d.id}">${d.number}</a></td>
                <td>${day(d.issued_at)}</td>
                <td>${DOCUMENT_TITLES[d.kind]}${d.provider === 'stripe' ? ' (Stripe)' : ''}</td>
                <td>${d.lines[0]?.description ?? ''}${d.lines.length > 1 ? ` and ${d.lines.length - 1} more` : ''}</td>
                <td class="num">${formatUsd(d.total_cents)}</td>
                <td><a href="/account/billing/documents/${d.id}/pdf">PDF</a></td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </div>`;
}

function documentView(d: BillingDocument): Html {
  const party = (label: string, lines: string[]) =>
    html`<div>
      <h3>${label}</h3>
      <p>${lines.map((l, i) => html`${i ? html`<br />` : ''}${l}`)}</p>
    </div>`;
  return html`<div class="card document" id="document">
    <p>Issued ${day(d.issued_at)} ${d.issued_at.slice(11, 16)} UTC · <span class="mono">${d.id}</span></p>
    <div class="stats">${party('From', partyLines(d.seller))} ${party('To', partyLines(d.buyer))}</div>
    <div class="table-wrap" role="region" aria-label="Lines of the document" tabindex="0">
      <table>
        <thead>
          <tr>
            <th>Description</th>
            <th class="num">Qty</th>
            <th class="num">Unit</th>
            <th class="num">Amount</th>
          </tr>
        </thead>
        <tbody>
          ${d.lines.map(
            (l) =>
              html`<tr>
                <td>${l.description}</td>
                <td class="num">${l.quantity}</td>
                <td class="num">${formatUsd(l.unit_cents)}</td>
                <td class="num">${formatUsd(l.amount_cents)}</td>
              </tr>`,
          )}
        </tbody>
        <tfoot>
          <tr>
            <th colspan="3">Total (${d.currency.toUpperCase()})</th>
            <th class="num" id="document-total">${formatUsd(d.total_cents)}</th>
          </tr>
        </tfoot>
      </table>
    </div>
    <p>
      <a class="button" href="/account/billing/documents/${d.id}/pdf">Download PDF</a>
      <a class="button secondary" href="/account/billing">Back to billing</a>
    </p>
  </div>`;
}

/** The document of the member's workspace named in the path, or null (a 404 for any other). */
async function documentOf(req: FastifyRequest<{ Params: { id: string } }>, deps: WebDeps) {
  const m = memberOf(req);
  const d = isDocumentId(req.params.id) ? await getDocument(deps.pool, m.workspaceId, req.params.id) : null;
  return { m, d };
}

export async function documentRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const notFound = (req: FastifyRequest, reply: FastifyReply, m: Member) =>
    render(req, reply, deps, m, {
      title: 'No such document',
      section: '/account/billing',
      body: html`<p>This workspace has no such document.</p>`,
      status: 404,
    });
  app.get<{ Params: { id: string } }>('/account/billing/documents/:id', async (req, reply) => {
    const { m, d } = await documentOf(req, deps);
    if (!d) return notFound(req, reply, m);
    const title = `${DOCUMENT_TITLES[d.kind]} ${d.number}`;
    return render(req, reply, deps, m, { title, section: '/account/billing', body: documentView(d) });
  });

  app.get<{ Params: { id: string } }>('/account/billing/documents/:id/pdf', async (req, reply) => {
    const { m, d } = await documentOf(req, deps);
    if (!d) return notFound(req, reply, m);
    const pdf = await documentPdf(d);
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="${d.number}.pdf"`)
      .type('application/pdf')
      .send(pdf);
  });
}
