// What every account page needs: the guard that admits only a signed-in member (or redirects to the login),
// the workspace shown and the user's other workspaces, the notice of the last form (a code in the query,
// never free text), and the owner-only guard of billing and membership changes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../accounts/audit.js';
import { memberships } from '../../accounts/members.js';
import type { Role, Session } from '../../accounts/sessions.js';
import { getWorkspace, type Workspace } from '../../accounts/workspaces.js';
import { webState, type WebDeps } from '../context.js';
import { refuseCsrf } from '../forms.js';
import { html } from '../html.js';
import { accountPage, csrfField, page, type AccountPage, type Notice } from '../layout.js';

export interface Member {
  readonly session: Session;
  readonly workspaceId: string;
  readonly role: Role;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in member an account route acts for (set by guardMember). */
    member?: Member;
  }
}

/**
 * The account routes' guard (their scope's preHandler, src/web/index.ts): a form's CSRF token first, then the
 * signed-in member acting for a workspace. Anything less is answered here (the form has expired, a redirect to
 * the login, a 403) and the route never runs.
 */
export async function guardMember(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
  if (req.method === 'POST' && refuseCsrf(req, reply)) return reply;
  const { session } = webState(req);
  if (!session) {
    const next = req.url.split('?')[0]!;
    return reply.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
  }
  if (!session.workspaceId || !session.role)
    return reply
      .code(403)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(noWorkspacePage(req));
  req.member = { session, workspaceId: session.workspaceId, role: session.role };
}

/** A signed-in user in no workspace (removed from the one they joined): a workspace of their own, or an invitation. */
function noWorkspacePage(req: FastifyRequest): string {
  return page(req, {
    title: 'No workspace',
    body: html`<div class="wrap page-narrow">
      <div class="card">
        <h1>You are in no workspace</h1>
        <p>
          Your account is not a member of any workspace now. Ask a workspace's owner to invite you again, or open a
          workspace of your own on the free trial (one per address).
        </p>
        <form method="post" action="/workspaces/own">
          ${csrfField(req)} <button type="submit">Open my own workspace</button>
        </form>
      </div>
    </div>`,
  });
}

/** The member of an account route (guardMember ran before it). */
export function memberOf(req: FastifyRequest): Member {
  if (!req.member) throw new Error('account routes are registered behind guardMember');
  return req.member;
}

/** Only the owner changes billing and membership (a route's preHandler): anyone else gets a 403 page. */
export const ownerOnly =
  (deps: WebDeps) =>
  async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> => {
    const m = memberOf(req);
    if (m.role === 'owner') return;
    return render(req, reply, deps, m, {
      title: 'Owner only',
      section: '/account',
      status: 403,
      body: html`<p>Only the workspace's owner changes its billing and its members.</p>`,
    });
  };

export interface Render extends Omit<AccountPage, 'plan' | 'memberships'> {
  readonly status?: number;
}

export async function render(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: WebDeps,
  m: Member,
  o: Render,
): Promise<FastifyReply> {
  const [ws, list] = await Promise.all([
    getWorkspace(deps.pool, m.workspaceId),
    memberships(deps.pool, m.session.userId),
  ]);
  return reply
    .code(o.status ?? 200)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(accountPage(req, { ...o, plan: ws.plan, memberships: list }));
}

/** The workspace the member acts for, as it stands. */
export const workspaceOf = (deps: WebDeps, m: Member): Promise<Workspace> => getWorkspace(deps.pool, m.workspaceId);

/** The outcome of the last form, from its code in the query (`?done=key_revoked`). */
export function noticeFrom(req: FastifyRequest, notices: Record<string, Notice>): Notice | null {
  const done = (req.query as Record<string, unknown> | undefined)?.done;
  return typeof done === 'string' ? (notices[done] ?? null) : null;
}

/** The member as the audit log names them: who, and the address the request came from. */
export const actorOf = (req: FastifyRequest, m: Member): Actor => ({ kind: 'user', id: m.session.userId, ip: req.ip });
