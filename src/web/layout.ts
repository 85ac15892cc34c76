// The page shell: head, the top bar (public links, and the account or sign-in links), the legal notes
// in the footer, and for the account pages the side navigation with the workspace switcher.
import type { FastifyRequest } from 'fastify';
import type { Membership } from '../accounts/members.js';
import type { CompanyConfig } from '../config/company.js';
import { PLANS, type PlanSlug } from '../accounts/catalog.js';
import { csrfToken, webState } from './context.js';
import { html, type Html } from './html.js';

/** Bumped with the assets, so browsers that cached the old ones fetch the new. */
const ASSET_VERSION = '5';
const asset = (path: string): string => `/assets/${path}?v=${ASSET_VERSION}`;

export interface PageOptions {
  readonly title: string;
  readonly body: Html;
  /** Scripts of this page, under /assets. */
  readonly scripts?: readonly string[];
  readonly styles?: readonly string[];
  /** The public link to mark as the current one. */
  readonly current?: string;
  readonly description?: string;
}

const PUBLIC_LINKS: ReadonlyArray<[string, string]> = [
  ['/pricing', 'Pricing'],
  ['/docs', 'Docs'],
  ['/data-coverage', 'Data coverage'],
];

/** A hidden field with the request's CSRF token, for every form that changes something. */
export const csrfField = (req: FastifyRequest): Html =>
  html`<input type="hidden" name="_csrf" value="${csrfToken(req)}" />`;

function topBar(req: FastifyRequest, current?: string): Html {
  const { session } = webState(req);
  const mark = (href: string) => (href === current ? html` aria-current="page"` : '');
  const links = PUBLIC_LINKS.map(([href, label]) => html`<a href="${href}" ${mark(href)}>${label}</a>`);
  const logout = html`<form method="post" action="/logout" class="inline">
    ${csrfField(req)} <button type="submit" class="link">Log out</button>
  </form>`;
  const account = session
    ? html`<a class="button small" href="/account">Account</a> ${logout}`
    : html`<a href="/login" ${mark('/login')}>Log in</a> <a class="button small" href="/signup">Sign up free</a>`;
  // Narrow screens hide the links and the account's buttons behind this menu: a <details>, so it opens without
  // JavaScript and its summary is a keyboard stop. Wide screens hide the menu instead (app.css).
  const menu = html`<details class="menu">
    <summary>Menu</summary>
    <nav aria-label="Menu">
      ${links}
      ${
        session
          ? html`<a href="/account">Account</a> ${logout}`
          : html`<a href="/login" ${mark('/login')}>Log in</a> <a href="/signup">Sign up free</a>`
      }
    </nav>
  </details>`;
  return html`<header class="topbar">
    <div class="wrap">
      <a class="brand" href="/"><span class="mark" aria-hidden="true">RL</span> Registry Lookup</a>
      <nav aria-label="Main" class="main-nav">${links}</nav>
      <div class="auth">${account}</div>
      ${menu}
    </div>
  </header>`;
}

/** The legal notes, the operator and the links to every public and legal page: the same on every page. */
function footer(company: CompanyConfig): Html {
  return html`<footer class="footer">
    <div class="wrap">
      <p>
        <strong>Not a consumer report.</strong> The data is public-record data from the Florida Division of
        Corporations. It must not be used for credit, employment, insurance, housing, tenant screening or any other
        purpose covered by the Fair Credit Reporting Act or similar consumer-reporting laws.
      </p>
      <p>
        <strong>Not the registry.</strong> Registry Lookup is an independent service, not affiliated with the Florida
        Division of Corporations, the Florida Department of State or any other government body.
      </p>
      <nav aria-label="Footer" class="links">
        <a href="/pricing">Pricing</a> <a href="/docs">Docs</a> <a href="/data-coverage">Data coverage</a>
        <a href="/llms.txt">llms.txt</a> <a href="/v1/openapi.json">OpenAPI</a> <a href="/terms">Terms</a>
        <a href="/privacy">Privacy</a> <a href="/refunds">Refunds</a> <a href="/contact">Contact</a>
      </nav>
      <p>Operated by ${company.name} · <a href="mailto:${company.supportEmail}">${company.supportEmail}</a></p>
    </div>
  </footer>`;
}

export function page(req: FastifyRequest, o: PageOptions): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${o.title} · Registry Lookup</title>
        ${o.description ? html`<meta name="description" content="${o.description}" />` : ''}
        <link rel="icon" href="${asset('favicon.svg')}" type="image/svg+xml" />
        <link rel="stylesheet" href="${asset('app.css')}" />
        ${(o.styles ?? []).map((s) => html`<link rel="stylesheet" href="${asset(s)}" />`)}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        ${topBar(req, o.current)}
        <main id="main" tabindex="-1">${o.body}</main>
        ${footer(webState(req).company)}
        ${(o.scripts ?? []).map((s) => html`<script src="${asset(s)}" defer></script>`)}
      </body>
    </html> `.value;
}

const ACCOUNT_SECTIONS = [
  ['/account', 'Overview'],
  ['/account/keys', 'API keys'],
  ['/account/billing', 'Billing'],
  ['/account/logs', 'Request log'],
  ['/account/audit', 'Audit log'],
  ['/account/monitoring', 'Monitoring'],
  ['/account/matching', 'Matching'],
  ['/account/exports', 'Exports'],
  ['/account/playground', 'Playground'],
  ['/account/members', 'Members'],
  ['/account/settings', 'Settings'],
] as const;

export interface AccountPage extends PageOptions {
  readonly section: (typeof ACCOUNT_SECTIONS)[number][0];
  readonly plan: PlanSlug;
  readonly memberships: readonly Membership[];
  /** A notice to show above the page (the outcome of the last form). */
  readonly notice?: Notice | null;
}

export interface Notice {
  readonly kind: 'ok' | 'error';
  readonly text: string | Html;
}

export const noticeBox = (n: Notice | null | undefined): Html =>
  n ? html`<div class="notice ${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}">${n.text}</div>` : html``;

/** An account page: the side navigation (with the workspace switcher) and the section's content. */
export function accountPage(req: FastifyRequest, o: AccountPage): string {
  const { session } = webState(req);
  const ws = o.memberships.find((m) => m.workspace_id === session?.workspaceId);
  const switcher =
    o.memberships.length > 1
      ? html`<form method="post" action="/account/workspace" class="switcher">
          ${csrfField(req)}
          <label for="ws">Workspace</label>
          <select id="ws" name="workspace_id">
            ${o.memberships.map(
              (m) =>
                html`<option value="${m.workspace_id}" ${m.workspace_id === ws?.workspace_id ? html` selected` : ''}>
                  ${m.name}
                </option>`,
            )}
          </select>
          <button type="submit" class="small">Switch</button>
        </form>`
      : html`<p class="ws-name" title="${ws?.workspace_id ?? ''}">${ws?.name ?? ''}</p>`;
  const nav = ACCOUNT_SECTIONS.map(
    ([href, label]) => html`<a href="${href}" ${href === o.section ? html` aria-current="page"` : ''}>${label}</a>`,
  );
  const body = html`<div class="wrap account">
    <aside class="side">
      ${switcher}
      <p class="plan-badge">${PLANS[o.plan].name}${ws?.role === 'member' ? ' · member' : ''}</p>
      <nav aria-label="Account">${nav}</nav>
    </aside>
    <section class="content">
      <h1>${o.title}</h1>
      ${noticeBox(o.notice)} ${o.body}
    </section>
  </div>`;
  return page(req, { ...o, body });
}
