// The hosted checkout page (/checkout/{id}): the pack or plan, its price and the workspace, and for an
// open local checkout a button that completes the payment. Plain HTML, no script, nothing external,
// written with the web app's one renderer (html.ts), which escapes every value.
import type { Checkout } from '../billing/checkouts.js';
import { formatUsd, PACKS, PLANS, type PackSlug, type PlanSlug } from '../accounts/catalog.js';
import { html, when, type Html } from './html.js';

/** Headers of every checkout page: never cached, never framed (a pay button), never leaking its URL. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
} as const;

function page(title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>${title} · Registry Lookup</title>
        <style>
          body {
            font:
              16px/1.5 system-ui,
              sans-serif;
            margin: 0;
            background: #f4f5f7;
            color: #1d2330;
          }
          main {
            max-width: 28rem;
            margin: 4rem auto;
            background: #fff;
            border-radius: 8px;
            padding: 2rem;
            box-shadow: 0 1px 4px rgba(0, 0, 0, 0.08);
          }
          h1 {
            font-size: 1.35rem;
            margin: 0 0 1rem;
          }
          dl {
            display: grid;
            grid-template-columns: auto 1fr;
            gap: 0.4rem 1rem;
            margin: 0 0 1.5rem;
          }
          dt {
            color: #5b6475;
          }
          dd {
            margin: 0;
            font-weight: 600;
          }
          button {
            width: 100%;
            font: inherit;
            font-weight: 600;
            padding: 0.75rem;
            border: 0;
            border-radius: 6px;
            background: #2453d4;
            color: #fff;
            cursor: pointer;
          }
          .note {
            color: #5b6475;
            font-size: 0.875rem;
          }
          .status {
            padding: 0.75rem;
            border-radius: 6px;
            background: #eef1f6;
          }
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.toString();
}

export interface CheckoutView {
  readonly checkout: Checkout;
  readonly workspaceName: string;
  readonly expired: boolean;
  /** The local provider is the configured one: an open local checkout can be paid on this page. */
  readonly payableHere: boolean;
}

/** What is bought: a pack's credits and price, or a plan's monthly price and this month's part. */
function details(c: Checkout, workspaceName: string): { title: string; list: Html } {
  const workspace = html`<dt>Workspace</dt>
    <dd>${workspaceName} (${c.workspace_id})</dd>`;
  if (c.kind === 'plan') {
    const plan = PLANS[c.slug as PlanSlug];
    return {
      title: `${plan.name} plan`,
      list: html`<dl>
        <dt>Price</dt>
        <dd>${formatUsd(plan.priceCents ?? 0)} a month, billed on the 1st</dd>
        <dt>Due now</dt>
        <dd>${formatUsd(c.amount_cents)} for the rest of this month</dd>
        <dt>Credits</dt>
        <dd>${plan.monthlyCredits.toLocaleString('en-US')} a month (this month in proportion)</dd>
        ${workspace}
      </dl>`,
    };
  }
  return {
    title: `${PACKS[c.slug as PackSlug].title} credit pack`,
    list: html`<dl>
      <dt>Credits</dt>
      <dd>${c.credits.toLocaleString('en-US')}, valid 12 months</dd>
      <dt>Price</dt>
      <dd>${formatUsd(c.amount_cents)}</dd>
      ${workspace}
    </dl>`,
  };
}

/** The page of a checkout in whatever state it is. */
export function checkoutPage({ checkout: c, workspaceName, expired, payableHere }: CheckoutView): string {
  const { title, list } = details(c, workspaceName);
  const back = html`<p class="note"><a href="/account/billing">Back to your account</a></p>`;
  const bought =
    c.kind === 'plan'
      ? html`The workspace is on the ${title}.`
      : html`${c.credits.toLocaleString('en-US')} credits were added to the workspace.`;
  let action: Html;
  if (c.status === 'paid')
    action = html`<p class="status">Paid on ${when(c.paid_at)}. ${bought} You can close this page.</p>
      ${back}`;
  else if (c.status === 'refunded') action = html`<p class="status">Refunded on ${when(c.refunded_at)}.</p>`;
  else if (c.provider !== 'local')
    action = html`<p class="status">
      Waiting for the payment to be confirmed. The credits are added as soon as it is; reload this page to see.
    </p>`;
  else if (expired)
    action = html`<p class="status">This checkout has expired. Start a new one.</p>
      ${back}`;
  else if (!payableHere)
    action = html`<p class="status">This checkout can no longer be paid. Start a new one.</p>
      ${back}`;
  // Relative: the page may be served under a path prefix (PUBLIC_BASE_URL).
  else
    action = html`<form method="post" action="${c.id}/complete">
        <button type="submit">Pay ${formatUsd(c.amount_cents)}</button>
      </form>
      <p class="note">
        Local checkout: this service takes no card. Paying here records the payment, exactly as a card processor's
        confirmation would.
      </p>`;
  return page(
    title,
    html`<h1>${title}</h1>
      ${list} ${action}`,
  );
}

/** A page for a checkout that does not exist, or a completion that cannot be made. */
export function messagePage(title: string, message: string): string {
  return page(
    title,
    html`<h1>${title}</h1>
      <p class="status">${message}</p>`,
  );
}
