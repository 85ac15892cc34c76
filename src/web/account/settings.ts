// Settings: change the password (every session of the user ends, this browser signs in again); the two-factor
// card (its routes: two-factor.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { openSession } from '../../accounts/sessions.js';
import { ownedWorkspaces } from '../../accounts/deletion.js';
import { twoFactorState } from '../../accounts/two-factor.js';
import { changePassword } from '../../accounts/users.js';
import { throttle, type WebDeps } from '../context.js';
import { setCookie } from '../cookies.js';
import { newPasswordField, parseForm, passwordField, throttled, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, type Notice } from '../layout.js';
import { twoFactorCard } from '../two-factor-pages.js';
import { deletionCard } from './deletion-card.js';
import { memberOf, noticeFrom, render } from './shared.js';

const ChangePassword = z.strictObject({ current: passwordField, password: newPasswordField });

const NOTICES: Record<string, Notice> = {
  password_changed: { kind: 'ok', text: 'Password changed. Every other browser is signed out.' },
  email_sent: {
    kind: 'ok',
    text: 'A link is on its way to the new address: your address changes once it is followed.',
  },
  two_factor_off: { kind: 'ok', text: 'Two-factor login is off: your password alone logs you in.' },
};

function body(req: FastifyRequest, email: string, errors: FieldErrors, twoFactor: Html, deletion: Html): Html {
  const error = (f: string) => (errors[f] ? html`<p class="hint field-error" role="alert">${errors[f]}</p>` : '');
  return html`<div class="card">
      <h2>Account</h2>
      <p>Signed in as <strong>${email}</strong>.</p>
    </div>
    <div class="card" id="email">
      <h2>Change address</h2>
      <form method="post" action="/account/settings/email" novalidate>
        ${csrfField(req)}
        <div class="field">
          <label for="new_email">New address</label>
          <input id="new_email" name="new_email" type="email" autocomplete="email" required maxlength="254" />
          <p class="hint">We mail a link there; your address changes once it is followed.</p>
          ${error('new_email')}
        </div>
        <div class="field">
          <label for="email_password">Password</label>
          <input
            id="email_password"
            name="email_password"
            type="password"
            autocomplete="current-password"
            required
            maxlength="200"
          />${error('email_password')}
        </div>
        <button type="submit" class="secondary">Send the link</button>
      </form>
    </div>
    <div class="card">
      <h2>Change password</h2>
      <form method="post" action="/account/settings/password" novalidate>
        ${csrfField(req)}
        <div class="field">
          <label for="current">Current password</label>
          <input
            id="current"
            name="current"
            type="password"
            autocomplete="current-password"
            required
            maxlength="200"
          />${error('current')}
        </div>
        <div class="field">
          <label for="password">New password</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required maxlength="200" />
          <p class="hint">At least 10 characters. Every browser signed in to your account is signed out.</p>
          ${error('password')}
        </div>
        <button type="submit">Change password</button>
      </form>
    </div>
    ${twoFactor} ${deletion}`;
}

/** The Settings page; `twoFactor` replaces the two-factor card (a setup under way, the recovery codes). */
export async function showSettings(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: WebDeps,
  o: { errors?: FieldErrors; status?: number; twoFactor?: Html } = {},
): Promise<FastifyReply> {
  const m = memberOf(req);
  const errors = o.errors ?? {};
  const card = o.twoFactor ?? twoFactorCard(req, await twoFactorState(deps.pool, m.session.userId), errors);
  const deletion = deletionCard(req, m, await ownedWorkspaces(deps.pool, m.session.userId), errors);
  return render(req, reply, deps, m, {
    title: 'Settings',
    section: '/account/settings',
    status: o.status ?? 200,
    body: body(req, m.session.email, errors, card, deletion),
    notice: noticeFrom(req, NOTICES),
  });
}

export async function settingsRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  app.get('/account/settings', async (req, reply) => showSettings(req, reply, deps));

  app.post('/account/settings/password', async (req, reply) => {
    const m = memberOf(req);
    const form = parseForm(ChangePassword, req.body);
    const again = (errors: FieldErrors, status: number) => showSettings(req, reply, deps, { errors, status });
    if (!form.ok) return again(form.errors, 400);
    const wait = await throttle(deps, req, 'password', m.session.userId);
    if (wait !== null) return throttled(req, reply, wait);
    const now = deps.clock.now();
    if (!(await changePassword(deps.pool, m.session.userId, form.data.current, form.data.password, now)))
      return again({ current: 'This is not your current password.' }, 400);
    // Every session ended with the change; this browser gets a new one.
    const { token, expiresAt } = await openSession(deps.pool, m.session.userId, now);
    setCookie(reply, deps.cookies, deps.cookies.session, token, expiresAt);
    return reply.redirect('/account/settings?done=password_changed', 303);
  });
}
