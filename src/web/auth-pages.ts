// The signed-out pages: sign up, log in, mail sent, verify, forgot and reset password, invitations.
import type { FastifyRequest } from 'fastify';
import { PLANS, type PlanSlug } from '../accounts/catalog.js';
import { PASSWORD_MIN } from '../accounts/passwords.js';
import type { FieldErrors } from './forms.js';
import { html, num, type Html } from './html.js';
import { keyOnce, KEY_ONCE_SCRIPTS } from './key-once.js';
import { csrfField, noticeBox, page, type Notice } from './layout.js';

const fieldError = (errors: FieldErrors, name: string): Html =>
  errors[name] ? html`<p class="hint field-error" id="${name}-error" role="alert">${errors[name]}</p>` : html``;

const described = (errors: FieldErrors, name: string): Html =>
  errors[name] ? html` aria-invalid="true" aria-describedby="${name}-error"` : html``;

function emailInput(errors: FieldErrors, value: string, autofocus = true): Html {
  return html`<div class="field">
    <label for="email">Email</label>
    <input
      id="email"
      name="email"
      type="email"
      autocomplete="email"
      required
      maxlength="254"
      value="${value}"
      ${autofocus ? html` autofocus` : ''}${described(errors, 'email')}
    />${fieldError(errors, 'email')}
  </div>`;
}

function passwordInput(errors: FieldErrors, name: string, label: string, autocomplete: string, hint = ''): Html {
  return html`<div class="field">
    <label for="${name}">${label}</label>
    <input
      id="${name}"
      name="${name}"
      type="password"
      autocomplete="${autocomplete}"
      required
      maxlength="200"
      ${described(errors, name)}
    />${hint ? html`<p class="hint">${hint}</p>` : ''}${fieldError(errors, name)}
  </div>`;
}

export const narrow = (
  req: FastifyRequest,
  title: string,
  inner: Html,
  current?: string,
  scripts: readonly string[] = [],
): string =>
  page(req, {
    title,
    scripts,
    body: html`<div class="wrap page-narrow"><div class="card">${inner}</div></div>`,
    ...(current ? { current } : {}),
  });

const formNotice = (errors: FieldErrors): Html =>
  errors.form ? noticeBox({ kind: 'error', text: errors.form }) : html``;

/** The plan chosen on the pricing page, as sign-up carries it. */
const chosenPlan = (plan: PlanSlug | null): Html =>
  plan
    ? html`<p class="notice ok">
          You chose the <strong>${PLANS[plan].name}</strong> plan: right after you verify your address, you can
          subscribe to it in one step. Your trial's credits are yours meanwhile.
        </p>
        <input type="hidden" name="plan" value="${plan}" />`
    : html``;

export function signupPage(
  req: FastifyRequest,
  errors: FieldErrors = {},
  email = '',
  plan: PlanSlug | null = null,
): string {
  return narrow(
    req,
    'Sign up',
    html`<h1>Create your account</h1>
      <p>
        Free trial: ${num(PLANS.free_trial.monthlyCredits)} credits, no card. Your first API key is shown as soon as you
        verify your address.
      </p>
      ${formNotice(errors)} ${errors.plan ? noticeBox({ kind: 'error', text: errors.plan }) : ''}
      <form method="post" action="/signup" novalidate>
        ${csrfField(req)} ${chosenPlan(plan)} ${emailInput(errors, email)}
        ${passwordInput(errors, 'password', 'Password', 'new-password', `At least ${PASSWORD_MIN} characters.`)}
        <button type="submit">Create account</button>
      </form>
      <p class="hint">Already have an account? <a href="/login">Log in</a>.</p>`,
  );
}

export function loginPage(
  req: FastifyRequest,
  o: { errors?: FieldErrors; email?: string; next?: string; notice?: Notice | null } = {},
): string {
  const errors = o.errors ?? {};
  return narrow(
    req,
    'Log in',
    html`<h1>Log in</h1>
      ${noticeBox(o.notice)}${formNotice(errors)}
      <form method="post" action="/login" novalidate>
        ${csrfField(req)} ${o.next ? html`<input type="hidden" name="next" value="${o.next}" />` : ''}
        ${emailInput(errors, o.email ?? '')} ${passwordInput(errors, 'password', 'Password', 'current-password')}
        <button type="submit">Log in</button>
      </form>
      <p class="hint"><a href="/forgot">Forgot your password?</a> · New here? <a href="/signup">Sign up</a>.</p>`,
    '/login',
  );
}

export function mailSentPage(req: FastifyRequest, title: string, email: string, what: string): string {
  return narrow(
    req,
    title,
    html`<h1>${title}</h1>
      <p role="status">
        If <strong>${email}</strong> can receive mail, a message is on its way with a link to ${what}. The link works
        once${what.includes('password') ? ', for one hour' : ', for two days'}.
      </p>
      <p class="hint">Nothing arrived? Check your spam folder, or <a href="/signup">try again</a>.</p>`,
  );
}

export function verifyPage(req: FastifyRequest, token: string): string {
  return narrow(
    req,
    'Verify your address',
    html`<h1>Verify your address</h1>
      <p>One click to confirm this address and open your workspace.</p>
      <form method="post" action="/verify">
        ${csrfField(req)}<input type="hidden" name="token" value="${token}" />
        <button type="submit" autofocus>Verify and continue</button>
      </form>`,
  );
}

/** What a spent or unknown link was for: each offers its own way on. */
export type LinkKind = 'verification' | 'reset' | 'invitation' | 'email_change';

const LINK_WAY_ON: Record<LinkKind, (req: FastifyRequest) => Html> = {
  verification: (req) =>
    html`<p>Verification links work once and expire after two days. Ask for a new one:</p>
      <form method="post" action="/verify/resend" novalidate>
        ${csrfField(req)} ${emailInput({}, '', false)}
        <button type="submit" class="secondary">Send a new verification link</button>
      </form>
      <p class="hint">Already verified? <a href="/login">Log in</a>.</p>`,
  reset: (req) =>
    html`<p>Password reset links work once and expire after an hour. Ask for a new one:</p>
      <form method="post" action="/forgot" novalidate>
        ${csrfField(req)} ${emailInput({}, '', false)}
        <button type="submit" class="secondary">Send a new reset link</button>
      </form>
      <p class="hint">Remember it after all? <a href="/login">Log in</a>.</p>`,
  email_change: () =>
    html`<p>Links that change an address work once and expire after a day. Ask again from Settings.</p>
      <p class="hint"><a href="/account/settings">Settings</a></p>`,
  invitation: () =>
    html`<p>
        Invitations work once and expire after seven days, and the workspace's owner may have withdrawn this one. Ask
        the owner to invite you again; the new mail brings a new link.
      </p>
      <p class="hint">Already a member? <a href="/login">Log in</a>.</p>`,
};

export function linkInvalidPage(req: FastifyRequest, kind: LinkKind): string {
  return narrow(
    req,
    'Link no longer valid',
    html`<h1>This link is no longer valid</h1>
      ${LINK_WAY_ON[kind](req)}`,
  );
}

export interface Welcome {
  /** The new workspace's first live key, shown this once; null when no workspace was opened. */
  readonly key: string | null;
  /** The workspaces the user joined by invitation. */
  readonly joined: string[];
  /** The plan chosen before signing up, offered for checkout (the owner of the new workspace only). */
  readonly plan: PlanSlug | null;
}

/** The first page after verifying: the workspace's first live key, shown this once, or the workspaces joined. */
export function welcomePage(req: FastifyRequest, base: string, w: Welcome): string {
  const keyBlock = w.key
    ? html`<p>
          Your workspace is on the free trial with ${num(PLANS.free_trial.monthlyCredits)} credits. Your first live API
          key: <strong>copy it now, it is shown only this once.</strong>
        </p>
        ${keyOnce(w.key)}
        <h2>Your first request</h2>
        <pre><code>curl -s "${base}/v1/entities/search?name=sunshine&amp;limit=3" \\
  -H "Authorization: Bearer ${w.key}"</code></pre>`
    : html`<p>Your address is verified.</p>`;
  const joined = w.joined.length
    ? html`<p>
        You joined ${w.joined.map((name, i) => html`${i ? ', ' : ''}<strong>${name}</strong>`)}, as you were invited:
        its keys, usage and request log are in your account.
      </p>`
    : html``;
  const plan = w.plan
    ? html`<h2>Your plan</h2>
        <p>You chose the <strong>${PLANS[w.plan].name}</strong> plan on the pricing page.</p>
        <form method="post" action="/account/billing/plan">
          ${csrfField(req)}<input type="hidden" name="plan" value="${w.plan}" />
          <button type="submit">Subscribe to ${PLANS[w.plan].name}</button>
        </form>
        <p class="hint">Or stay on the trial for now: plans are on the Billing page whenever you want one.</p>`
    : html``;
  return narrow(
    req,
    'Welcome',
    html`<h1>Welcome to Registry Lookup</h1>
      ${joined} ${keyBlock} ${plan}
      <p><a class="button${w.plan ? ' secondary' : ''}" href="/account">Go to your account</a></p>`,
    undefined,
    w.key ? KEY_ONCE_SCRIPTS : [],
  );
}

export function forgotPage(req: FastifyRequest, errors: FieldErrors = {}, email = ''): string {
  return narrow(
    req,
    'Reset your password',
    html`<h1>Reset your password</h1>
      <p>We will mail you a link to choose a new password.</p>
      ${formNotice(errors)}
      <form method="post" action="/forgot" novalidate>
        ${csrfField(req)} ${emailInput(errors, email)} <button type="submit">Send the link</button>
      </form>`,
  );
}

export function resetPage(req: FastifyRequest, token: string, errors: FieldErrors = {}): string {
  return narrow(
    req,
    'Choose a new password',
    html`<h1>Choose a new password</h1>
      ${formNotice(errors)}
      <form method="post" action="/reset" novalidate>
        ${csrfField(req)}<input type="hidden" name="token" value="${token}" />
        ${passwordInput(errors, 'password', 'New password', 'new-password', `At least ${PASSWORD_MIN} characters.`)}
        <button type="submit">Set password</button>
      </form>
      <p class="hint">Every browser signed in to your account is signed out.</p>`,
  );
}

export function invitePage(
  req: FastifyRequest,
  inv: { workspace_name: string; email: string },
  token: string,
  signedInAs: string | null,
): string {
  let action: Html;
  if (!signedInAs)
    action = html`<p>
        Log in as <strong>${inv.email}</strong> to accept, or sign up with that address: once you verify it, you are a
        member of ${inv.workspace_name}.
      </p>
      <p>
        <a class="button" href="/login?next=${encodeURIComponent(`/invite/${token}`)}">Log in to accept</a>
        <a class="button secondary" href="/signup">Sign up with that address</a>
      </p>`;
  else if (signedInAs !== inv.email)
    action = html`<p class="notice error">
      This invitation is for <strong>${inv.email}</strong>; you are signed in as ${signedInAs}. Log out and log in with
      the invited address.
    </p>`;
  else
    action = html`<form method="post" action="/invite/${token}">
      ${csrfField(req)} <button type="submit" autofocus>Join ${inv.workspace_name}</button>
    </form>`;
  return narrow(
    req,
    'Invitation',
    html`<h1>Join ${inv.workspace_name}</h1>
      <p>You are invited to this Registry Lookup workspace: its members manage its API keys and see its usage.</p>
      ${action}`,
  );
}
