// The Settings card that deletes the workspace (its owner) and the account (docs/web.md, "Deleting"); the routes
// are deletion.ts.
import type { FastifyRequest } from 'fastify';
import type { FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import type { Member } from './shared.js';

/** What deletion keeps, said on the form and after. */
export const KEPT =
  'Kept, as accounting and tax law require: the credit ledger, payments, receipts and invoices. The request log ' +
  'is deleted by its usual 30-day purge.';

/** The Settings card: delete the workspace (its owner) and delete the account. */
export function deletionCard(
  req: FastifyRequest,
  m: Member,
  owned: Array<{ name: string }>,
  errors: FieldErrors,
): Html {
  const error = (f: string) => (errors[f] ? html`<p class="hint field-error" role="alert">${errors[f]}</p>` : '');
  const form = (action: string, button: string, what: Html) =>
    html`<form method="post" action="${action}" novalidate>
      ${csrfField(req)}
      <p>${what}</p>
      <div class="field">
        <label for="${action}-password">Password</label>
        <input
          id="${action}-password"
          name="delete_password"
          type="password"
          autocomplete="current-password"
          required
          maxlength="200"
        />
      </div>
      <div class="field">
        <label><input type="checkbox" name="confirm" value="yes" required /> I understand this cannot be undone</label>
      </div>
      <button type="submit" class="danger">${button}</button>
    </form>`;
  return html`<div class="card" id="delete">
    <h2>Delete</h2>
    ${error('delete_password')} ${error('confirm')}
    ${
      m.role === 'owner'
        ? form(
            '/account/settings/delete-workspace',
            'Delete this workspace',
            html`Deleting this workspace cancels its plan, stops its API keys at once and removes its members,
            invitations, watches and webhooks. ${KEPT}`,
          )
        : ''
    }
    ${form(
      '/account/settings/delete-account',
      'Delete my account',
      html`Deleting your account signs you out everywhere, takes you out of every workspace and frees your
      address${
        owned.length
          ? html`; the workspaces you own are deleted with it: <strong>${owned.map((w) => w.name).join(', ')}</strong>`
          : ''
      }.
      ${KEPT}`,
    )}
  </div>`;
}
