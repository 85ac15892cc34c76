// Members: the owner invites by address (a mailed link), revokes invitations and removes members;
// everyone sees who belongs. The workspace switcher's POST is here too.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  invite,
  listMembers,
  MemberError,
  pendingInvitations,
  removeMember,
  revokeInvitation,
  type Invitation,
  type Member as WorkspaceMember,
} from '../../accounts/members.js';
import { chooseWorkspace } from '../../accounts/sessions.js';
import { normalizeEmail } from '../../accounts/users.js';
import { throttle, type WebDeps } from '../context.js';
import { emailField, isId, parseForm, throttled } from '../forms.js';
import { html, when, type Html } from '../html.js';
import { csrfField, type Notice } from '../layout.js';
import { invitationMail } from '../mails.js';
import { actorOf, type Member, memberOf, noticeFrom, ownerOnly, render, workspaceOf } from './shared.js';

const NOTICES: Record<string, Notice> = {
  invited: { kind: 'ok', text: 'Invitation sent.' },
  revoked: { kind: 'ok', text: 'Invitation revoked.' },
  removed: { kind: 'ok', text: 'Member removed.' },
  nothing: { kind: 'error', text: 'Nothing changed: no such invitation or member.' },
};

const InviteForm = z.strictObject({ email: emailField });

function body(req: FastifyRequest, m: Member, members: WorkspaceMember[], invitations: Invitation[]): Html {
  const owner = m.role === 'owner';
  const memberRows = members.map(
    (u) =>
      html`<tr>
        <td>${u.email}</td>
        <td><span class="pill${u.role === 'owner' ? ' ok' : ''}">${u.role}</span></td>
        <td>${when(u.created_at)}</td>
        <td>
          ${
            owner && u.role === 'member'
              ? html`<form method="post" action="/account/members/${u.user_id}/remove" class="inline">
                  ${csrfField(req)}
                  <button type="submit" class="danger small" aria-label="Remove ${u.email}">Remove</button>
                </form>`
              : ''
          }
        </td>
      </tr>`,
  );
  const invitationRows = invitations.map(
    (i) =>
      html`<tr>
        <td>${i.email}</td>
        <td>${when(i.created_at)}</td>
        <td>${when(i.expires_at)}</td>
        <td>
          ${
            owner
              ? html`<form method="post" action="/account/invitations/${i.id}/revoke" class="inline">
                  ${csrfField(req)}
                  <button type="submit" class="secondary small" aria-label="Revoke the invitation of ${i.email}">
                    Revoke
                  </button>
                </form>`
              : ''
          }
        </td>
      </tr>`,
  );
  return html`${
      owner
        ? html`<div class="card">
            <h2>Invite a member</h2>
            <form method="post" action="/account/members" novalidate>
              ${csrfField(req)}
              <div class="row">
                <div class="field">
                  <label for="invite-email">Email</label>
                  <input
                    id="invite-email"
                    name="email"
                    type="email"
                    required
                    maxlength="254"
                    placeholder="colleague@example.com"
                  />
                </div>
                <div class="field"><button type="submit">Send invitation</button></div>
              </div>
              <p class="hint">
                Members manage API keys and see usage and the request log; only you change billing and members.
              </p>
            </form>
          </div>`
        : html`<p class="notice warn">You are a member: the owner invites and removes members and changes billing.</p>`
    }
    <div class="card">
      <h2>Members</h2>
      <div class="table-wrap" role="region" aria-label="Members" tabindex="0">
        <table>
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>Since</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${memberRows}
          </tbody>
        </table>
      </div>
    </div>
    <div class="card">
      <h2>Pending invitations</h2>
      ${
        invitationRows.length
          ? html`<div class="table-wrap" role="region" aria-label="Pending invitations" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th>Email</th>
                    <th>Sent</th>
                    <th>Expires</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${invitationRows}
                </tbody>
              </table>
            </div>`
          : html`<p class="empty">None.</p>`
      }
    </div>`;
}

export async function memberRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock } = deps;
  const show = async (req: FastifyRequest, m: Member) =>
    body(req, m, await listMembers(pool, m.workspaceId), await pendingInvitations(pool, m.workspaceId, clock.now()));

  app.get('/account/members', async (req, reply) => {
    const m = memberOf(req);
    return render(req, reply, deps, m, {
      title: 'Members',
      section: '/account/members',
      body: await show(req, m),
      notice: noticeFrom(req, NOTICES),
    });
  });

  app.post('/account/members', { preHandler: ownerOnly(deps) }, async (req, reply) => {
    const m = memberOf(req);
    const form = parseForm(InviteForm, req.body);
    const fail = async (text: string) =>
      render(req, reply, deps, m, {
        title: 'Members',
        section: '/account/members',
        status: 400,
        body: await show(req, m),
        notice: { kind: 'error', text },
      });
    if (!form.ok) return fail(Object.values(form.errors)[0]!);
    const email = normalizeEmail(form.data.email);
    const wait = await throttle(deps, req, 'invite', email, 2);
    if (wait !== null) return throttled(req, reply, wait);
    let token: string;
    try {
      token = await invite(pool, m.workspaceId, m.session.userId, email, clock.now(), actorOf(req, m));
    } catch (err) {
      if (err instanceof MemberError) return fail(err.message);
      throw err;
    }
    const ws = await workspaceOf(deps, m);
    await deps.mailer.send(invitationMail(email, deps.publicBaseUrl, token, ws.name, m.session.email));
    return reply.redirect('/account/members?done=invited', 303);
  });

  app.post<{ Params: { id: string } }>(
    '/account/invitations/:id/revoke',
    { preHandler: ownerOnly(deps) },
    async (req, reply) => {
      const m = memberOf(req);
      const done =
        isId('inv', req.params.id) &&
        (await revokeInvitation(pool, m.workspaceId, req.params.id, clock.now(), actorOf(req, m)));
      return reply.redirect(`/account/members?done=${done ? 'revoked' : 'nothing'}`, 303);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/account/members/:id/remove',
    { preHandler: ownerOnly(deps) },
    async (req, reply) => {
      const m = memberOf(req);
      const done =
        isId('usr', req.params.id) &&
        (await removeMember(pool, m.workspaceId, req.params.id, clock.now(), actorOf(req, m)));
      return reply.redirect(`/account/members?done=${done ? 'removed' : 'nothing'}`, 303);
    },
  );

  app.post('/account/workspace', async (req, reply) => {
    const m = memberOf(req);
    const id = (req.body as Record<string, unknown> | undefined)?.workspace_id;
    const done = isId('ws', id) && (await chooseWorkspace(pool, m.session, id));
    return reply.redirect(done ? '/account?done=switched' : '/account', 303);
  });
}
