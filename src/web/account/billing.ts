// Billing: the balance and its parts, credit packs (buy through the checkout, refund within the rule),
// the plan (subscribe, upgrade, downgrade, cancel; Stripe's portal with Stripe), the payment history,
// overage invoices and their items, billing details, alert and cap. Members see it; only the owner
// changes it. docs/web.md, "The dashboard".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PACK_SLUGS, PACKS, PLANS, formatUsd, type PlanSlug } from '../../accounts/catalog.js';
import { listPacks, isPackSlug } from '../../accounts/packs.js';
import { billingBalance } from '../../billing/balance.js';
import { BillingError } from '../../billing/errors.js';
import { getCheckout, isCheckoutId, refundCheckout, startCheckout } from '../../billing/checkouts.js';
import { getBillingDetails } from '../../billing/details.js';
import { listDocuments } from '../../billing/documents.js';
import { listInvoices } from '../../billing/invoices.js';
import { getLimits } from '../../billing/limits.js';
import { isSelfServe } from '../../billing/plan-change.js';
import { cancelPlan, choosePlan, portalUrl } from '../../billing/plans.js';
import type { WebDeps } from '../context.js';
import { html, num, when } from '../html.js';
import { csrfField, type Notice } from '../layout.js';
import { confirmationCard, isConfirmed } from './confirm.js';
import { documentRoutes, documentsSection } from './billing-documents.js';
import {
  detailsSection,
  limitsSection,
  settingsRoutes,
  SETTINGS_NOTICES,
  type RefusedForm,
} from './billing-settings.js';
import { planSection } from './plan-section.js';
import { actorOf, type Member, memberOf, noticeFrom, ownerOnly, render, workspaceOf } from './shared.js';

const NOTICES: Record<string, Notice> = {
  refunded: { kind: 'ok', text: 'The pack is refunded and its unused credits removed.' },
  subscribe: { kind: 'ok', text: 'Subscribed.' },
  upgrade: { kind: 'ok', text: 'Upgraded: the new plan applies now, with this month’s extra credits.' },
  downgrade: { kind: 'ok', text: 'Downgrade scheduled for the next monthly cycle.' },
  keep: { kind: 'ok', text: 'The scheduled downgrade is dropped: you keep your plan.' },
  none: { kind: 'ok', text: 'Nothing to change: this is your plan.' },
  cancelled: { kind: 'ok', text: 'Subscription cancelled. Its overage is on a final invoice.' },
  ...Object.fromEntries(Object.entries(SETTINGS_NOTICES).map(([k, text]) => [k, { kind: 'ok', text } as Notice])),
};

async function billingPage(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: WebDeps,
  m: Member,
  notice: Notice | null,
  status = 200,
  refused: RefusedForm | null = null,
) {
  const now = deps.clock.now();
  const [ws, balance, packs, invoices, documents, details, limits] = await Promise.all([
    workspaceOf(deps, m),
    billingBalance(deps.pool, m.workspaceId, now),
    listPacks(deps.pool, m.workspaceId, now),
    listInvoices(deps.pool, m.workspaceId),
    listDocuments(deps.pool, m.workspaceId),
    getBillingDetails(deps.pool, m.workspaceId),
    getLimits(deps.pool, m.workspaceId, now),
  ]);
  const owner = m.role === 'owner';
  const csrf = csrfField(req);
  const packRows = packs.map((p) => {
    const state = p.closed_reason
      ? html`<span class="pill">${p.closed_reason}</span>`
      : html`<span class="pill ok">active</span>`;
    const refund =
      owner && p.refundable && p.checkout_id
        ? html`<form method="post" action="/account/billing/refunds/${p.checkout_id}" class="inline">
            ${csrf} <button type="submit" class="secondary small">Refund</button>
          </form>`
        : '';
    return html`<tr>
      <td>${PACKS[p.slug].title}</td>
      <td class="num">${num(p.remaining)} / ${num(p.credits)}</td>
      <td>${when(p.purchased_at)}</td>
      <td>${p.expires_at.slice(0, 10)}</td>
      <td>${state}</td>
      <td>${refund}</td>
    </tr>`;
  });
  const buy = owner
    ? html`<form method="post" action="/account/billing/packs" class="row">
          ${csrf}
          <div class="field">
            <label for="pack">Pack</label
            ><select id="pack" name="slug">
              ${PACK_SLUGS.map(
                (s) =>
                  html`<option value="${s}">
                    ${PACKS[s].title}: ${num(PACKS[s].credits)} credits, ${formatUsd(PACKS[s].priceCents)}
                  </option>`,
              )}
            </select>
          </div>
          <div class="field"><button type="submit">Buy pack</button></div>
        </form>
        <p class="hint">
          Packs work on every plan, are spent after the monthly credits and last 12 months. Refundable within 14 days
          while no more than 10% is used.
        </p>`
    : '';
  const invoiceRows = invoices.map(
    (i) =>
      html`<tr>
        <td class="mono">${i.id}</td>
        <td>${i.period_start.slice(0, 7)}${i.final ? ' (final)' : ''}</td>
        <td><span class="pill${i.status === 'paid' ? ' ok' : ''}">${i.status}</span></td>
        <td class="num">${num(i.credits)}</td>
        <td class="num">${formatUsd(i.amount_cents)}</td>
        <td>
          <details>
            <summary>${i.items.length} items</summary>
            <table>
              <tbody>
                ${i.items.map(
                  (it) =>
                    html`<tr>
                      <td>${it.day}</td>
                      <td class="num">${num(it.credits)} credits</td>
                      <td class="num">${formatUsd(it.amount_cents)}</td>
                      <td>${it.paid_at ? 'paid' : 'unpaid'}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </details>
        </td>
      </tr>`,
  );
  const body = html`<div class="stats">
      <div class="stat">
        <div class="label">Balance</div>
        <div class="value" id="billing-balance">${num(balance.balance)}</div>
      </div>
      <div class="stat">
        <div class="label">Monthly credits left</div>
        <div class="value">${num(balance.monthly_remaining)}</div>
      </div>
      <div class="stat">
        <div class="label">Pack credits left</div>
        <div class="value" id="packs-remaining">${num(balance.packs_remaining)}</div>
      </div>
      <div class="stat">
        <div class="label">Overage not yet billed</div>
        <div class="value">${num(balance.overage_unbilled)}</div>
      </div>
    </div>
    ${await planSection(req, deps, m, ws)}
    <div class="card">
      <h2>Credit packs</h2>
      ${buy}
      ${
        packRows.length
          ? html`<div class="table-wrap" role="region" aria-label="Credit packs" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th>Pack</th>
                    <th class="num">Left / credits</th>
                    <th>Bought</th>
                    <th>Expires</th>
                    <th>Status</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${packRows}
                </tbody>
              </table>
            </div>`
          : html`<p class="empty">No packs yet.</p>`
      }
    </div>
    ${documentsSection(documents)}
    <div class="card">
      <h2>Overage invoices</h2>
      ${
        invoiceRows.length
          ? html`<div class="table-wrap" role="region" aria-label="Invoices" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th>Invoice</th>
                    <th>Month</th>
                    <th>Status</th>
                    <th class="num">Credits</th>
                    <th class="num">Amount</th>
                    <th>Items</th>
                  </tr>
                </thead>
                <tbody>
                  ${invoiceRows}
                </tbody>
              </table>
            </div>`
          : html`<p class="empty">No overage invoices: overage is invoiced daily, once there is some.</p>`
      }
    </div>
    ${limitsSection(req, owner, limits, refused)} ${detailsSection(req, owner, details, refused)}`;
  return render(req, reply, deps, m, { title: 'Billing', section: '/account/billing', body, notice, status });
}

export async function billingRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock, payments } = deps;
  const fail = (req: FastifyRequest, reply: FastifyReply, m: Member, err: unknown) => {
    if (err instanceof BillingError) return billingPage(req, reply, deps, m, { kind: 'error', text: err.message }, 409);
    throw err;
  };

  settingsRoutes(app, deps, (req, reply, m, refused) =>
    billingPage(req, reply, deps, m, { kind: 'error', text: 'Nothing was changed: see the form below.' }, 400, refused),
  );
  await documentRoutes(app, deps);

  app.get('/account/billing', async (req, reply) => {
    const m = memberOf(req);
    return billingPage(req, reply, deps, m, noticeFrom(req, NOTICES));
  });

  app.post('/account/billing/packs', { preHandler: ownerOnly(deps) }, async (req, reply) => {
    const m = memberOf(req);
    const slug = (req.body as Record<string, unknown> | undefined)?.slug;
    if (!isPackSlug(slug)) return billingPage(req, reply, deps, m, { kind: 'error', text: 'Choose a pack.' }, 400);
    const { url } = await startCheckout(pool, payments, m.workspaceId, slug, clock.now());
    return reply.redirect(url, 303);
  });

  app.post<{ Params: { id: string } }>(
    '/account/billing/refunds/:id',
    { preHandler: ownerOnly(deps) },
    async (req, reply) => {
      const m = memberOf(req);
      const checkout = isCheckoutId(req.params.id) ? await getCheckout(pool, req.params.id) : null;
      if (!checkout || checkout.workspace_id !== m.workspaceId)
        return billingPage(req, reply, deps, m, { kind: 'error', text: 'This workspace has no such purchase.' }, 404);
      try {
        await refundCheckout(pool, payments, checkout.id, clock.now());
      } catch (err) {
        return fail(req, reply, m, err);
      }
      return reply.redirect('/account/billing?done=refunded', 303);
    },
  );

  app.post('/account/billing/plan', { preHandler: ownerOnly(deps) }, async (req, reply) => {
    const m = memberOf(req);
    const plan = (req.body as Record<string, unknown> | undefined)?.plan;
    if (!isSelfServe(plan)) return billingPage(req, reply, deps, m, { kind: 'error', text: 'Choose a plan.' }, 400);
    try {
      const choice = await choosePlan(pool, payments, m.workspaceId, plan as PlanSlug, clock.now(), actorOf(req, m));
      return reply.redirect('pay' in choice ? choice.pay : `/account/billing?done=${choice.done}`, 303);
    } catch (err) {
      return fail(req, reply, m, err);
    }
  });

  app.post('/account/billing/cancel', { preHandler: ownerOnly(deps) }, async (req, reply) => {
    const m = memberOf(req);
    const ws = await workspaceOf(deps, m);
    const cancellable = ws.plan !== 'free_trial' && ws.subscription_status !== 'cancelled';
    // The first post asks (a plan that cannot be cancelled goes on to cancelPlan's reason).
    if (cancellable && !isConfirmed(req.body))
      return render(req, reply, deps, m, {
        title: 'Billing',
        section: '/account/billing',
        body: confirmationCard(req, {
          question: `Cancel the ${PLANS[ws.plan].name} subscription?`,
          consequence:
            'Overage stops at once and what was used is billed on a final invoice. This month’s credits and your ' +
            'packs stay yours to spend; next month grants no credits. Subscribing again later is a new subscription.',
          action: '/account/billing/cancel',
          button: 'Cancel the subscription',
          back: { href: '/account/billing', label: 'Keep my plan' },
        }),
      });
    try {
      await cancelPlan(pool, payments, m.workspaceId, clock.now(), actorOf(req, m));
    } catch (err) {
      return fail(req, reply, m, err);
    }
    return reply.redirect('/account/billing?done=cancelled', 303);
  });

  app.post('/account/billing/portal', { preHandler: ownerOnly(deps) }, async (req, reply) => {
    const m = memberOf(req);
    const url = await portalUrl(pool, payments, m.workspaceId, `${deps.publicBaseUrl}/account/billing`);
    if (!url) return billingPage(req, reply, deps, m, { kind: 'error', text: 'There is no card on file yet.' }, 409);
    return reply.redirect(url, 303);
  });
}
