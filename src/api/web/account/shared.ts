// What every account page needs: the signed-in member (or a redirect to the login), the workspace shown
// and the user's other workspaces, the notice of the last form (a code in the query, never free text),
// and the owner-only guard of billing and membership changes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { memberships, type Membership } from '../../../accounts/members.js';
import type { Role, Session } from '../../../accounts/sessions.js';
import { getWorkspace, type Workspace } from '../../../accounts/workspaces.js';
import { webState, type WebDeps } from '../context.js';
import { refuseCsrf } from '../forms.js';
import { html } from '../html.js';
import { accountPage, type AccountPage, type Notice } from '../layout.js';

export interface Member {
  readonly session: Session;
  readonly workspaceId: string;
  readonly role: Role;
}

/** The signed-in member acting for a workspace; null after answering (redirect to the login, or no workspace). */
export function member(req: FastifyRequest, reply: FastifyReply): Member | null {
  const { session } = webState(req);
  if (!session) {
    const next = req.url.split('?')[0]!;
    void reply.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
    return null;
  }
  if (!session.workspaceId || !session.role) {
    void reply.code(403).type('text/html; charset=utf-8').send('This account belongs to no workspace.');
    return null;
  }
  return { session, workspaceId: session.workspaceId, role: session.role };
}

/** A POST of an account form: CSRF first, then the member; null when already answered. */
export function memberPost(req: FastifyRequest, reply: FastifyReply): Member | null {
  if (refuseCsrf(req, reply)) return null;
  return member(req, reply);
}

/** Only the owner changes billing and membership: anyone else gets a 403 page. */
export function ownerOnly(req: FastifyRequest, reply: FastifyReply, m: Member, deps: WebDeps): boolean {
  if (m.role === 'owner') return true;
  void render(req, reply, deps, m, {
    title: 'Owner only',
    section: '/account',
    status: 403,
    body: html`<p>Only the workspace's owner changes its billing and its members.</p>`,
  });
  return false;
}

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

export type { Membership };

/** The outcome of the last form, from its code in the query (`?done=key_revoked`). */
export function noticeFrom(req: FastifyRequest, notices: Record<string, Notice>): Notice | null {
  const done = (req.query as Record<string, unknown> | undefined)?.done;
  return typeof done === 'string' ? (notices[done] ?? null) : null;
}
