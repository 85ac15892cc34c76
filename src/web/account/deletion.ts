// Deleting the workspace (its owner) or one's account, from Settings (docs/web.md, "Deleting"): the password and a
// ticked box confirm it. A paid plan is cancelled first, as "Cancel plan" does (its overage billed, Stripe's
// subscription ended), then the rows go as src/accounts/deletion.ts says.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { deleteUser, deleteWorkspace, ownedWorkspaces } from '../../accounts/deletion.js';
import { passwordMatches } from '../../accounts/users.js';
import type { Actor } from '../../accounts/audit.js';
import { getWorkspace } from '../../accounts/workspaces.js';
import { cancelPlan } from '../../billing/plans.js';
import { narrow } from '../auth-pages.js';
import { throttle, type WebDeps } from '../context.js';
import { clearCookie } from '../cookies.js';
import { parseForm, passwordField, throttled } from '../forms.js';
import { html } from '../html.js';
import { KEPT } from './deletion-card.js';
import { showSettings } from './settings.js';
import { actorOf, memberOf } from './shared.js';

const Confirm = z.strictObject({
  delete_password: passwordField,
  confirm: z.literal('yes', { error: 'Tick the box to confirm.' }),
});

export async function deletionRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock, payments } = deps;

  /** The plan cancelled (when a paid one runs), then the workspace deleted. */
  const remove = async (workspaceId: string, actor: Actor): Promise<void> => {
    const w = await getWorkspace(pool, workspaceId);
    if (w.plan !== 'free_trial' && w.subscription_status !== 'cancelled')
      await cancelPlan(pool, payments, workspaceId, clock.now(), actor);
    await deleteWorkspace(pool, workspaceId, clock.now(), actor);
  };

  /** The form checked, the password right (throttled as password attempts), or the answer given. */
  const confirmed = async (req: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const { session } = memberOf(req);
    const form = parseForm(Confirm, req.body);
    if (!form.ok) {
      await showSettings(req, reply, deps, { status: 400, errors: form.errors });
      return false;
    }
    const wait = await throttle(deps, req, 'password', session.userId);
    if (wait !== null) {
      await throttled(req, reply, wait);
      return false;
    }
    if (await passwordMatches(pool, session.userId, form.data.delete_password)) return true;
    await showSettings(req, reply, deps, { status: 400, errors: { delete_password: 'This is not your password.' } });
    return false;
  };

  app.post('/account/settings/delete-workspace', async (req, reply) => {
    const m = memberOf(req);
    if (m.role !== 'owner') return reply.code(403).type('text/html; charset=utf-8').send('Owner only.');
    if (!(await confirmed(req, reply))) return reply;
    await remove(m.workspaceId, actorOf(req, m));
    return reply.redirect('/account', 303);
  });

  app.post('/account/settings/delete-account', async (req, reply) => {
    const m = memberOf(req);
    const { session } = m;
    if (!(await confirmed(req, reply))) return reply;
    for (const w of await ownedWorkspaces(pool, session.userId)) await remove(w.id, actorOf(req, m));
    await deleteUser(pool, session.userId, clock.now());
    clearCookie(reply, deps.cookies, deps.cookies.session);
    req.web = { session: null, csrfSecret: req.web?.csrfSecret ?? '', company: deps.company };
    const page = narrow(
      req,
      'Account deleted',
      html`<h1>Your account is deleted</h1>
        <p>You are signed out, your address is free, and the workspaces you owned are deleted. ${KEPT}</p>
        <p><a class="button secondary" href="/">Home</a></p>`,
    );
    return reply.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  });
}
