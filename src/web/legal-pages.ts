// The terms, privacy, refund and contact pages. Plain statements of what the service does (the data, its use
// restriction, credits and refunds from the one catalog the gate and billing read), naming the operator and the
// addresses of its configuration (src/config/company.ts). docs/web.md, "Pages".
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  PACK_VALID_MONTHS,
  PLANS,
  REFUND_DAYS,
  REFUND_MAX_USED_PERCENT,
  TRIAL_CAP,
  TRIAL_DAYS,
} from '../accounts/catalog.js';
import { REQUEST_LOG_RETENTION_DAYS } from '../accounts/request-log.js';
import type { CompanyConfig } from '../config/company.js';
import type { WebDeps } from './context.js';
import { html, num, type Html } from './html.js';
import { page } from './layout.js';

const mail = (address: string): Html => html`<a href="mailto:${address}">${address}</a>`;

/** How long a signed-in browser stays signed in (src/accounts/sessions.ts). */
const SESSION_DAYS = 14;

function textPage(req: FastifyRequest, title: string, path: string, body: Html): string {
  return page(req, {
    title,
    current: path,
    body: html`<div class="wrap">
      <section class="hero"><h1>${title}</h1></section>
      <div class="card page-text legal">${body}</div>
    </div>`,
  });
}

function terms(c: CompanyConfig, base: string): Html {
  return html`<p>
      These terms are between you and ${c.name} ("we"), who runs Registry Lookup at <a href="${base}/">${base}</a>.
      Creating an account or calling the API with a key means you accept them.
    </p>
    <h2>The service</h2>
    <p>
      Registry Lookup is a read-only API (REST and MCP) over the public records of the Florida Division of Corporations:
      entities, officers, registered agents, addresses and filings, loaded from the registry's bulk files and refreshed
      every morning. The data is as the registry publishes it, with its errors and delays; see
      <a href="/data-coverage">data coverage</a> for its date. Officer addresses are never returned.
    </p>
    <h2>Not the registry</h2>
    <p>
      We are not the registry and not affiliated with the Florida Division of Corporations, the Florida Department of
      State or any other government body. For official records and certificates, ask the registry.
    </p>
    <h2>Not a consumer report</h2>
    <p>
      The data must not be used, in whole or in part, as a factor in deciding anyone's eligibility for credit,
      employment, insurance, housing or tenancy (tenant screening), or for any other purpose covered by the Fair Credit
      Reporting Act or similar consumer-reporting laws. We may close a workspace used for such a purpose.
    </p>
    <h2>Accounts and keys</h2>
    <ul>
      <li>Keep your API keys secret: requests made with a key are charged to its workspace.</li>
      <li>Revoke a key you no longer trust on the API keys page: it is refused from the next request on.</li>
      <li>The owner of a workspace decides who is a member, and alone changes its plan and billing.</li>
    </ul>
    <h2>Credits and payment</h2>
    <p>
      Each metered request costs one credit when it answers (a "not found" too); errors, the keyless routes, usage and
      billing are free. Monthly credits renew on the 1st at 00:00 UTC and do not roll over; credit packs last
      ${PACK_VALID_MONTHS} months. Paid plans may serve past their credits as overage, billed on the next invoice.
      Prices and limits are those on the <a href="/pricing">pricing page</a> when you buy or subscribe. Refunds follow
      the <a href="/refunds">refund policy</a>.
    </p>
    <h2>Limits</h2>
    <p>
      Each plan has a per-minute request limit. We may suspend a workspace that breaks these terms, tries to get around
      its limits or endangers the service.
    </p>
    <h2>Contact</h2>
    <p>
      Questions about these terms: ${mail(c.legalEmail)}. Everything else: the <a href="/contact">contact page</a>.
    </p>`;
}

function privacy(c: CompanyConfig): Html {
  return html`<p>
      ${c.name} runs Registry Lookup and decides what is done with the personal data below. Questions and requests (to
      see, correct or delete your data): ${mail(c.legalEmail)}.
    </p>
    <h2>What we keep about you</h2>
    <ul>
      <li>
        <strong>Your account</strong>: your email address and a hash of your password (Argon2id; the password itself is
        never stored), whether the address is verified, and the workspaces you belong to.
      </li>
      <li>
        <strong>Sessions</strong>: a signed-in browser is a row keyed by the hash of its cookie, kept for up to
        ${SESSION_DAYS} days or until you log out.
      </li>
      <li>
        <strong>Requests</strong>: for each API call, its time, route, status, duration, credits and the client's IP
        address, never the key; kept ${REQUEST_LOG_RETENTION_DAYS} days, so you can read them on the request log page.
        Daily totals of credits are kept for the usage chart.
      </li>
      <li>
        <strong>Billing</strong>: your checkouts, credit packs and invoices. Card payments are taken by Stripe on its
        own pages; we keep Stripe's reference to you, never card numbers.
      </li>
      <li><strong>Monitoring</strong>: the webhook addresses, watched entities and saved searches you register.</li>
    </ul>
    <h2>Mail</h2>
    <p>
      We write to you only for your account: verifying your address, resetting your password, invitations to a
      workspace, and telling you when someone tries to sign up with your address.
    </p>
    <h2>Cookies</h2>
    <p>
      Two cookies, both needed for the site to work: the session (who is signed in) and a token protecting forms against
      forgery. No analytics, no advertising, and no script or font from another site.
    </p>
    <h2>The registry's data</h2>
    <p>
      The API serves the names of officers and registered agents as the Florida registry publishes them. Officer
      addresses are never returned. Corrections to the records themselves are made at the registry; our copy follows at
      the next daily refresh.
    </p>`;
}

function refunds(c: CompanyConfig): Html {
  return html`<h2>Credit packs</h2>
    <p>
      A credit pack is refunded in full when it was paid less than ${REFUND_DAYS} days ago and at most
      ${REFUND_MAX_USED_PERCENT}% of its credits are used. Its unused credits are then taken out of your balance, and a
      card payment goes back to the card through Stripe. The workspace's owner refunds a pack with its
      <strong>Refund</strong> button on the billing page, shown while the pack qualifies; or write to
      ${mail(c.supportEmail)} with the workspace and the pack.
    </p>
    <h2>Plans</h2>
    <p>
      Subscription payments are not refunded. Cancelling stops the plan at once: overage stops and what was used is
      billed on a final invoice, and this month's credits and your packs stay yours to spend. A downgrade applies at the
      next monthly cycle, so the month you paid for keeps its plan.
    </p>
    <h2>Overage and the free trial</h2>
    <p>
      Overage is billed for requests that were answered, so it is not refunded; a request that failed was never charged.
      The free trial costs nothing: ${num(PLANS.free_trial.monthlyCredits)} credits once, capped at ${num(TRIAL_CAP)}
      after ${TRIAL_DAYS} days.
    </p>
    <h2>Questions</h2>
    <p>Anything about a charge: ${mail(c.supportEmail)}.</p>`;
}

function contact(c: CompanyConfig): Html {
  const lines = c.postalAddress?.split(';').map((l) => l.trim()) ?? [];
  const address = lines.length
    ? html`<address>${lines.map((l, i) => html`${i ? html`<br />` : ''}${l}`)}</address>`
    : '';
  return html`<dl class="contact">
      <dt>Support: accounts, keys, billing, refunds</dt>
      <dd>${mail(c.supportEmail)}</dd>
      <dt>Sales: Enterprise plans and volume</dt>
      <dd>${mail(c.salesEmail)}</dd>
      <dt>Legal: terms, privacy, data use</dt>
      <dd>${mail(c.legalEmail)}</dd>
      <dt>Operator</dt>
      <dd>${c.name}${address}</dd>
    </dl>
    <p class="hint">
      Registry Lookup is not the Florida registry: for official records and filings, contact the Florida Division of
      Corporations.
    </p>`;
}

export async function legalPages(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const c = deps.company;
  const send = (path: string, title: string, body: Html) =>
    app.get(path, async (req, reply) => reply.type('text/html; charset=utf-8').send(textPage(req, title, path, body)));
  send('/terms', 'Terms of service', terms(c, deps.publicBaseUrl));
  send('/privacy', 'Privacy', privacy(c));
  send('/refunds', 'Refund policy', refunds(c));
  send('/contact', 'Contact', contact(c));
}
