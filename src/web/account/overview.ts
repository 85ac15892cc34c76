// The account overview: this month's metered requests against the quota with a daily chart split REST /
// MCP, the reset date, and the balance with its parts (docs/web.md, "The dashboard").
import type { FastifyInstance } from 'fastify';
import { PLANS } from '../../accounts/catalog.js';
import { dailyUsage, workspaceUsage } from '../../accounts/usage.js';
import { billingBalance } from '../../billing/balance.js';
import type { WebDeps } from '../context.js';
import { html, num } from '../html.js';
import { trialDay, trialSentence } from './plan-section.js';
import { memberOf, noticeFrom, render, workspaceOf } from './shared.js';

const NOTICES = {
  joined: { kind: 'ok', text: 'You joined the workspace.' },
  switched: { kind: 'ok', text: 'Showing the workspace you chose.' },
} as const;

export async function overviewRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  app.get('/account', async (req, reply) => {
    const m = memberOf(req);
    const now = deps.clock.now();
    const [ws, usage, days, balance] = await Promise.all([
      workspaceOf(deps, m),
      workspaceUsage(deps.pool, m.workspaceId, now),
      dailyUsage(deps.pool, m.workspaceId, now),
      billingBalance(deps.pool, m.workspaceId, now),
    ]);
    const plan = PLANS[ws.plan];
    const percent = Math.min(100, usage.percent_used);
    const trialNote =
      ws.plan === 'free_trial'
        ? html`<p class="hint">
            ${trialSentence(ws, now)} <a href="/account/billing">Subscribe</a> or buy a pack for more.
          </p>`
        : '';
    const status =
      ws.subscription_status === 'past_due'
        ? html`<div class="notice error" role="alert">
            The last payment failed: overage is paused until it clears. <a href="/account/billing">Billing</a>
          </div>`
        : '';
    const body = html`${status}
      <div class="stats">
        <div class="stat">
          <div class="label">Requests this month</div>
          <div class="value">${num(usage.events_count)}</div>
          <div class="sub">
            ${plan.unlimited ? 'unlimited plan' : html`of ${num(usage.monthly_quota)} (${usage.percent_used}%)`}
          </div>
          <div
            class="meter"
            role="progressbar"
            aria-label="Monthly quota used"
            aria-valuemin="0"
            aria-valuemax="100"
            aria-valuenow="${Math.round(percent)}"
          >
            <span class="w${Math.round(percent / 5) * 5}"></span>
          </div>
        </div>
        <div class="stat">
          <div class="label">Balance</div>
          <div class="value" id="balance">${num(balance.balance)}</div>
          <div class="sub">credits to spend</div>
        </div>
        <div class="stat">
          <div class="label">Plan</div>
          <div class="value">${plan.name}</div>
          <div class="sub">
            ${
              ws.plan === 'free_trial'
                ? trialDay(ws, now)
                : ws.subscription_status === 'active'
                  ? 'active'
                  : ws.subscription_status.replace('_', ' ')
            }
          </div>
        </div>
        <div class="stat">
          <div class="label">Quota resets</div>
          <div class="value date">${usage.reset_date.slice(0, 10)}</div>
          <div class="sub">00:00 UTC</div>
        </div>
      </div>
      ${trialNote}
      <div class="card">
        <h2>Metered requests per day</h2>
        <div class="chart-box">
          <canvas
            id="usage-chart"
            role="img"
            aria-label="Metered requests per day this month, REST and MCP"
            data-days="${JSON.stringify(days)}"
          ></canvas>
        </div>
        <details>
          <summary>As a table</summary>
          <div class="table-wrap" role="region" aria-label="Metered requests per day" tabindex="0">
            <table>
              <thead>
                <tr>
                  <th>Day</th>
                  <th class="num">REST</th>
                  <th class="num">MCP</th>
                </tr>
              </thead>
              <tbody>
                ${days.map(
                  (d) =>
                    html`<tr>
                      <td>${d.day}</td>
                      <td class="num">${num(d.rest)}</td>
                      <td class="num">${num(d.mcp)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>
        </details>
      </div>
      <div class="card">
        <h2>Balance</h2>
        <div class="table-wrap" role="region" aria-label="Balance" tabindex="0">
          <table>
            <tbody>
              <tr>
                <th scope="row">Monthly credits left</th>
                <td class="num">${num(balance.monthly_remaining)}</td>
              </tr>
              <tr>
                <th scope="row">Pack credits left</th>
                <td class="num">${num(balance.packs_remaining)}</td>
              </tr>
              <tr>
                <th scope="row">Overage not yet billed</th>
                <td class="num">${num(balance.overage_unbilled)}</td>
              </tr>
              <tr>
                <th scope="row">Balance</th>
                <td class="num"><strong>${num(balance.balance)}</strong></td>
              </tr>
            </tbody>
          </table>
        </div>
        <p class="hint">
          Spent in this order: monthly credits, then packs (earliest expiry first), then overage where the plan has it.
          <a href="/account/billing">Packs, plan and invoices</a>
        </p>
      </div>`;
    return render(req, reply, deps, m, {
      title: 'Overview',
      section: '/account',
      body,
      notice: noticeFrom(req, NOTICES),
      scripts: ['vendor/chart.umd.min.js', 'usage-chart.js'],
    });
  });
}
