// What a browser gets instead of the API's JSON envelope when its page request goes wrong: an unknown address, a
// form too large, a server error. A page in the site's layout with a way back; the API's paths (/v1, /api/v1, /mcp)
// and clients that do not ask for HTML keep the envelope (src/api/transport-errors.ts asks here first).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loadWebState, type WebDeps } from './context.js';
import { html, type Html } from './html.js';
import { page } from './layout.js';

/** Paths of the API: their answers are the contract's envelope whatever the client accepts. */
const API_PATH = /^\/(v1|api\/v1|mcp)(\/|$|\?)/;

/**
 * The error pages are answered outside the web app's scope, so they carry its headers themselves: no script,
 * style or image from elsewhere, never framed.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

const TITLES: Record<number, string> = {
  400: 'This request could not be read',
  403: 'Not allowed',
  404: 'Page not found',
  405: 'Not allowed here',
  413: 'That was too much to send',
  415: 'This form could not be read',
};

/** A browser asking for a page: not an API path, and `Accept` names HTML before JSON (curl and fetch send star). */
function wantsPage(req: FastifyRequest): boolean {
  if (API_PATH.test(req.url)) return false;
  const accept = String(req.headers.accept ?? '').toLowerCase();
  const htmlAt = accept.indexOf('text/html');
  const jsonAt = accept.indexOf('json');
  return htmlAt >= 0 && (jsonAt < 0 || htmlAt < jsonAt);
}

/**
 * Where an unknown page address should go instead, or null: `/account/` to `/account` (a trailing slash), and
 * `/Pricing` to `/pricing` when the lower-case address is a page (only static ones: a token in a path keeps its case).
 */
function pageRedirect(app: FastifyInstance, req: FastifyRequest): string | null {
  if (req.method !== 'GET' || API_PATH.test(req.url)) return null;
  const [path = '/', query] = req.url.split(/\?(.*)/s, 2);
  let target = path.length > 1 ? path.replace(/\/+$/, '') || '/' : path;
  if (!app.hasRoute({ method: 'GET', url: target }) && app.hasRoute({ method: 'GET', url: target.toLowerCase() }))
    target = target.toLowerCase();
  // `//host` would be read as another site: a path is never allowed to start so.
  if (target === path || target.startsWith('//') || !app.hasRoute({ method: 'GET', url: target })) return null;
  return query === undefined ? target : `${target}?${query}`;
}

function body(status: number, message: string, requestId: string, back: Html): Html {
  return html`<div class="wrap page-narrow">
    <div class="card">
      <p class="hint">Error ${status}</p>
      <h1>${TITLES[status] ?? (status >= 500 ? 'Something went wrong on our side' : 'This request was refused')}</h1>
      <p>${message}</p>
      <p class="back">${back}</p>
      <p class="hint">Request id <code>${requestId}</code>: quote it if you write to us.</p>
    </div>
  </div>`;
}

/** The page for `status`, with the session loaded when the web app's hook did not run (an unknown address). */
async function sendErrorPage(
  deps: WebDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
): Promise<FastifyReply> {
  req.web ??= await loadWebState(deps, req, reply);
  const back = req.web.session
    ? html`<a class="button" href="/account">Back to your account</a> <a href="/">Home</a>`
    : html`<a class="button" href="/">Back to the home page</a> <a href="/docs">Docs</a>
        <a href="/contact">Contact</a>`;
  const title = TITLES[status] ?? 'Error';
  return reply
    .code(status)
    .headers(PAGE_HEADERS)
    .type('text/html; charset=utf-8')
    .send(page(req, { title, body: body(status, message, req.id, back) }));
}

/** The three answers above as src/api/transport-errors.ts takes them (wired in by src/main). */
export const browserPages = (app: FastifyInstance, deps: WebDeps) => ({
  wants: wantsPage,
  redirect: (req: FastifyRequest) => pageRedirect(app, req),
  send: (req: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    sendErrorPage(deps, req, reply, status, message),
});
