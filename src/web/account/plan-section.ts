// The plan card of the billing page: the current plan and its state, a scheduled downgrade, the
// self-serve plans with what choosing each would do now (and cost), cancellation and Stripe's portal.
import type { FastifyRequest } from 'fastify';
import { PLANS, TRIAL_CAP, TRIAL_DAYS, formatUsd } from '../../accounts/catalog.js';
import type { Workspace } from '../../accounts/workspaces.js';
import {
  changeKind,
  creditsAdded,
  dueNowCents,
  nextCycleStart,
  pendingPlan,
  SELF_SERVE_PLANS,
} from '../../billing/plan-change.js';
import type { WebDeps } from '../context.js';
import { html, num, when, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import type { Member } from './shared.js';

const LABEL = {
  subscribe: 'Subscribe',
  upgrade: 'Upgrade',
  downgrade: 'Downgrade',
  keep: 'Keep this plan',
  none: 'Current plan',
};

/** When the trial's days are over: its balance is then capped (the gate, docs/contract.md "Plans and credits"). */
const trialEnd = (ws: Workspace): Date => new Date(Date.parse(ws.created_at) + TRIAL_DAYS * 86_400_000);

/** The trial's end day in a few words: `until 2026-03-17`, or `ended 2026-03-17`. */
export function trialDay(ws: Workspace, now: Date): string {
  const end = trialEnd(ws);
  return `${ws.trial_capped_at || now >= end ? 'ended' : 'until'} ${end.toISOString().slice(0, 10)}`;
}

/** The trial's end date and what it means, for the overview and this card; nothing for other plans. */
export function trialSentence(ws: Workspace, now: Date): Html | '' {
  if (ws.plan !== 'free_trial') return '';
  const end = trialEnd(ws);
  return ws.trial_capped_at || now >= end
    ? html`The trial's ${TRIAL_DAYS} days ended on ${when(end.toISOString())}: what is left is capped at
      ${num(TRIAL_CAP)} credits.`
    : html`The trial's ${TRIAL_DAYS} days end on <strong>${when(end.toISOString())}</strong>; then what is left is
        capped at ${num(TRIAL_CAP)} credits.`;
}

export async function planSection(req: FastifyRequest, deps: WebDeps, m: Member, ws: Workspace): Promise<Html> {
  const now = deps.clock.now();
  const pending = await pendingPlan(deps.pool, ws.id);
  const owner = m.role === 'owner';
  const csrf = csrfField(req);
  const state =
    ws.plan === 'free_trial'
      ? ''
      : ws.subscription_status === 'active'
        ? html`<span class="pill ok">active</span>`
        : ws.subscription_status === 'past_due'
          ? html`<span class="pill err">payment failed: overage paused</span>`
          : html`<span class="pill warn">cancelled</span>`;
  const cards = SELF_SERVE_PLANS.map((slug) => {
    const p = PLANS[slug];
    const kind = changeKind({ ...ws, pending_plan: pending }, slug);
    const isCurrent = slug === ws.plan && ws.subscription_status !== 'cancelled';
    let what = '';
    if (kind === 'subscribe' || kind === 'upgrade')
      what =
        `${formatUsd(dueNowCents(kind, ws.plan, slug, now))} now, ` +
        `+${num(creditsAdded(kind, ws.plan, slug, now))} credits this month`;
    else if (kind === 'downgrade') what = `from ${nextCycleStart(now).toISOString().slice(0, 10)}`;
    const action =
      owner && kind !== 'none'
        ? html`<form method="post" action="/account/billing/plan">
            ${csrf}<input type="hidden" name="plan" value="${slug}" />
            <button type="submit" class="${kind === 'upgrade' || kind === 'subscribe' ? '' : 'secondary'} small">
              ${LABEL[kind]}
            </button>
          </form>`
        : html`<span class="hint">${isCurrent ? 'Your plan' : ''}</span>`;
    return html`<div class="card plan${isCurrent ? ' current' : ''}">
      <h3>${p.name}</h3>
      <div class="price">${formatUsd(p.priceCents ?? 0)} <small>/ month</small></div>
      <ul>
        <li>${num(p.monthlyCredits)} credits a month</li>
        <li>${num(p.perMinute)} a minute</li>
        <li>
          ${[p.surfaces.length === 2 ? 'REST and MCP' : 'MCP only', p.csv ? 'CSV' : '', p.leadFeed ? 'lead feed' : '']
            .filter(Boolean)
            .join(', ')}
        </li>
      </ul>
      <p class="hint">${what}</p>
      ${action}
    </div>`;
  });
  const cancel =
    owner && ws.plan !== 'free_trial' && ws.subscription_status !== 'cancelled'
      ? html`<form method="post" action="/account/billing/cancel" class="inline">
          ${csrf} <button type="submit" class="danger small">Cancel subscription</button>
        </form>`
      : '';
  const portal =
    owner && deps.payments.subscriptions && ws.stripe_customer_id
      ? html`<form method="post" action="/account/billing/portal" class="inline">
          ${csrf} <button type="submit" class="secondary small">Payment methods and Stripe invoices</button>
        </form>`
      : '';
  return html`<div class="card">
    <h2>Plan</h2>
    <p>
      You are on <strong>${PLANS[ws.plan].name}</strong> ${state}${
        pending
          ? html` · moves to <strong>${PLANS[pending].name}</strong> on
              ${nextCycleStart(now).toISOString().slice(0, 10)}`
          : ''
      }
    </p>
    ${ws.plan === 'free_trial' ? html`<p class="hint">${trialSentence(ws, now)}</p>` : ''}
    ${owner ? '' : html`<p class="hint">Only the workspace's owner changes the plan.</p>`}
    <div class="plans">${cards}</div>
    <p class="hint">
      Upgrades apply now: you pay the difference for the rest of the month and get the difference in credits for it.
      Downgrades apply at the next cycle. Cancelling stops overage at once and bills it; this month's credits and packs
      stay. Enterprise: <a href="mailto:${deps.company.salesEmail}">contact us</a>.
    </p>
    <p>${cancel} ${portal}</p>
  </div>`;
}
