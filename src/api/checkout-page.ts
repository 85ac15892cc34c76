// The hosted checkout page (/checkout/{id}): the pack or plan, its price and the workspace, and for an
// open local checkout a button that completes the payment. Plain HTML, no script, nothing external.
import type { Checkout } from '../billing/checkouts.js';
import { formatUsd, PACKS, PLANS, type PackSlug, type PlanSlug } from '../accounts/catalog.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** Headers of every checkout page: never cached, never framed (a pay button), never leaking its URL. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
} as const;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escape(title)} · Registry Lookup</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
main { max-width: 28rem; margin: 4rem auto; background: #fff; border-radius: 8px; padding: 2rem;
  box-shadow: 0 1px 4px rgba(0,0,0,.08); }
h1 { font-size: 1.35rem; margin: 0 0 1rem; }
dl { display: grid; grid-template-columns: auto 1fr; gap: .4rem 1rem; margin: 0 0 1.5rem; }
dt { color: #5b6475; } dd { margin: 0; font-weight: 600; }
button { width: 100%; font: inherit; font-weight: 600; padding: .75rem; border: 0; border-radius: 6px;
  background: #2453d4; color: #fff; cursor: pointer; }
.note { color: #5b6475; font-size: .875rem; }
.status { padding: .75rem; border-radius: 6px; background: #eef1f6; }
</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}

export interface CheckoutView {
  readonly checkout: Checkout;
  readonly workspaceName: string;
  readonly expired: boolean;
  /** The local provider is the configured one: an open local checkout can be paid on this page. */
  readonly payableHere: boolean;
}

/** What is bought: a pack's credits and price, or a plan's monthly price and this month's part. */
function details(c: Checkout, workspaceName: string): { title: string; html: string } {
  const workspace = `<dt>Workspace</dt><dd>${escape(workspaceName)} (${escape(c.workspace_id)})</dd>`;
  if (c.kind === 'plan') {
    const plan = PLANS[c.slug as PlanSlug];
    return {
      title: `${plan.name} plan`,
      html: `<dl>
<dt>Price</dt><dd>${escape(formatUsd(plan.priceCents ?? 0))} a month, billed on the 1st</dd>
<dt>Due now</dt><dd>${escape(formatUsd(c.amount_cents))} for the rest of this month</dd>
<dt>Credits</dt><dd>${plan.monthlyCredits.toLocaleString('en-US')} a month (this month in proportion)</dd>
${workspace}
</dl>`,
    };
  }
  return {
    title: `${PACKS[c.slug as PackSlug].title} credit pack`,
    html: `<dl>
<dt>Credits</dt><dd>${c.credits.toLocaleString('en-US')}, valid 12 months</dd>
<dt>Price</dt><dd>${escape(formatUsd(c.amount_cents))}</dd>
${workspace}
</dl>`,
  };
}

/** The page of a checkout in whatever state it is. */
export function checkoutPage({ checkout: c, workspaceName, expired, payableHere }: CheckoutView): string {
  const { title, html } = details(c, workspaceName);
  const what = `<h1>${escape(title)}</h1>\n${html}`;
  const back = '<p class="note"><a href="/account/billing">Back to your account</a></p>';
  let action: string;
  if (c.status === 'paid')
    action =
      `<p class="status">Paid on ${escape(c.paid_at!)}. ` +
      (c.kind === 'plan'
        ? `The workspace is on the ${escape(title)}.`
        : `${c.credits.toLocaleString('en-US')} credits were added to the workspace.`) +
      ` You can close this page.</p>${back}`;
  else if (c.status === 'refunded') action = `<p class="status">Refunded on ${escape(c.refunded_at!)}.</p>`;
  else if (c.provider !== 'local')
    action =
      '<p class="status">Waiting for the payment to be confirmed. ' +
      'The credits are added as soon as it is; reload this page to see.</p>';
  else if (expired) action = `<p class="status">This checkout has expired. Start a new one.</p>${back}`;
  else if (!payableHere) action = `<p class="status">This checkout can no longer be paid. Start a new one.</p>${back}`;
  else {
    // Relative: the page may be served under a path prefix (PUBLIC_BASE_URL).
    action =
      `<form method="post" action="${escape(c.id)}/complete">
<button type="submit">Pay ${escape(formatUsd(c.amount_cents))}</button>
</form>
<p class="note">Local checkout: this service takes no card. ` +
      "Paying here records the payment, exactly as a card processor's confirmation would.</p>";
  }
  return page(title, `${what}\n${action}`);
}

/** A page for a checkout that does not exist, or a completion that cannot be made. */
export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escape(title)}</h1>\n<p class="status">${escape(message)}</p>`);
}
