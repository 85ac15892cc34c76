// The pages of two-factor login (docs/web.md, "Two-factor login"): the login's second step, and the Settings card
// that sets it up (a QR code drawn here, as SVG, from the otpauth:// URI), shows the recovery codes once, and turns
// it off.
import type { FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { TwoFactorState } from '../accounts/two-factor.js';
import { narrow } from './auth-pages.js';
import type { FieldErrors } from './forms.js';
import { html, Html, when } from './html.js';
import { csrfField, noticeBox } from './layout.js';

const error = (errors: FieldErrors, name: string): Html =>
  errors[name] ? html`<p class="hint field-error" id="${name}-error" role="alert">${errors[name]}</p>` : html``;

const codeInput = (errors: FieldErrors, label: string, hint: string): Html =>
  html`<div class="field">
    <label for="code">${label}</label>
    <input
      id="code"
      name="code"
      inputmode="numeric"
      autocomplete="one-time-code"
      required
      maxlength="20"
      autofocus
      ${errors.code ? html` aria-invalid="true" aria-describedby="code-error"` : ''}
    />
    <p class="hint">${hint}</p>
    ${error(errors, 'code')}
  </div>`;

/** The login's second step: the code from the authenticator app, or a recovery code. */
export function secondStepPage(req: FastifyRequest, challenge: string, errors: FieldErrors = {}): string {
  return narrow(
    req,
    'Two-factor login',
    html`<h1>Enter your code</h1>
      <p>Your password is right. Now the 6-digit code your authenticator app shows for Registry Lookup.</p>
      <form method="post" action="/login/code" novalidate>
        ${csrfField(req)}<input type="hidden" name="challenge" value="${challenge}" />
        ${codeInput(errors, 'Code', 'Lost your phone? Enter one of your recovery codes instead.')}
        <button type="submit">Log in</button>
      </form>`,
  );
}

/** The Settings card: on (since when, recovery codes left, a form to turn it off) or off (a button to set it up). */
export function twoFactorCard(req: FastifyRequest, state: TwoFactorState, errors: FieldErrors = {}): Html {
  if (!state.enabled)
    return html`<div class="card" id="two-factor">
      <h2>Two-factor login</h2>
      <p>Off. With it on, logging in also asks for a code from an authenticator app on your phone.</p>
      <form method="post" action="/account/settings/two-factor/setup">
        ${csrfField(req)} <button type="submit">Set up two-factor login</button>
      </form>
    </div>`;
  return html`<div class="card" id="two-factor">
    <h2>Two-factor login</h2>
    <p>On since ${when(state.enabledAt)}. ${state.recoveryLeft} of 10 recovery codes left.</p>
    <form method="post" action="/account/settings/two-factor/disable" novalidate>
      ${csrfField(req)}
      <div class="field">
        <label for="tf-password">Password</label>
        <input
          id="tf-password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          maxlength="200"
        />
        ${error(errors, 'password')}
      </div>
      ${codeInput(errors, 'Code or recovery code', 'A code from your app, to show it is you.')}
      <button type="submit" class="danger">Turn two-factor login off</button>
    </form>
  </div>`;
}

/** The setup: scan the QR code (or type the secret), then confirm with a first code. */
export async function setupBody(
  req: FastifyRequest,
  secret: string,
  uri: string,
  errors: FieldErrors = {},
): Promise<Html> {
  // Drawn here from our own URI: nothing fetched, nothing from the user in it.
  const svg = new Html(await QRCode.toString(uri, { type: 'svg', margin: 1, width: 200 }));
  return html`<div class="card" id="two-factor">
    <h2>Set up two-factor login</h2>
    <p>Scan this code with an authenticator app (Google Authenticator, 1Password, Authy, ...):</p>
    <div class="qr" role="img" aria-label="QR code of the two-factor secret">${svg}</div>
    <p>Or type this key into the app: <code class="mono">${secret}</code></p>
    <form method="post" action="/account/settings/two-factor/confirm" novalidate>
      ${csrfField(req)} ${codeInput(errors, 'The code the app shows', 'Two-factor login is on once this code matches.')}
      <button type="submit">Turn it on</button>
    </form>
  </div>`;
}

/** The recovery codes, shown once, right after the setup. */
export function recoveryCodesBody(codes: string[]): Html {
  return html`<div class="card" id="two-factor">
    <h2>Two-factor login is on</h2>
    ${noticeBox({ kind: 'ok', text: 'Save these recovery codes now: they are shown only this once.' })}
    <p>Each logs you in once in place of a code, if you lose your phone.</p>
    <ul class="mono recovery-codes">
      ${codes.map((c) => html`<li>${c}</li>`)}
    </ul>
    <p><a class="button" href="/account/settings">Done</a></p>
  </div>`;
}
