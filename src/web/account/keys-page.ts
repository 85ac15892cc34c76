// The keys page: the form that creates a key, the new secret shown once, and the table of keys with this month's
// usage, last use, and per key a rename, a roll (with the grace of its previous secret) and a revoke.
import type { FastifyRequest } from 'fastify';
import { ROLL_GRACES, type KeyView, type RollGrace } from '../../accounts/key-admin.js';
import type { FieldErrors } from '../forms.js';
import { html, num, when, type Html } from '../html.js';
import { keyOnce } from '../key-once.js';
import { csrfField } from '../layout.js';

/** The grace choices as a person reads them, in the order shown. */
const GRACE_LABELS: Record<RollGrace, string> = {
  none: 'stops now',
  '1h': 'works 1 more hour',
  '24h': 'works 24 more hours',
  '7d': 'works 7 more days',
};

/** What the page shows beside the table: a secret made by the last form, and the form errors of one key's row. */
export interface KeysPageState {
  readonly secret?: { readonly title: string; readonly key: string } | null;
  /** The create form's errors by field. */
  readonly errors?: FieldErrors;
  /** A key row's rename or roll errors, by field (`name`, `grace`). */
  readonly rowErrors?: { readonly keyId: string; readonly errors: FieldErrors } | null;
}

const fieldError = (errors: FieldErrors | undefined, f: string): Html | '' =>
  errors?.[f] ? html`<p class="hint field-error" role="alert">${errors[f]}</p>` : '';

function manage(req: FastifyRequest, k: KeyView, errors: FieldErrors | undefined): Html {
  const label = k.name ?? k.hint;
  return html`<details${errors ? ' open' : ''}>
    <summary>Manage</summary>
    <form method="post" action="/account/keys/${k.id}/rename" novalidate>
      ${csrfField(req)}
      <label for="rename-${k.id}">New name</label>
      <input id="rename-${k.id}" name="name" type="text" maxlength="60" required value="${k.name ?? ''}" />
      ${fieldError(errors, 'name')}
      <button type="submit" class="small secondary" aria-label="Rename ${label}">Rename</button>
    </form>
    <form method="post" action="/account/keys/${k.id}/roll">
      ${csrfField(req)}
      <label for="grace-${k.id}">New secret; the current one</label>
      <select id="grace-${k.id}" name="grace">
        ${(Object.keys(ROLL_GRACES) as RollGrace[]).map(
          (g) => html`<option value="${g}" ${g === '24h' ? ' selected' : ''}>${GRACE_LABELS[g]}</option>`,
        )}
      </select>
      ${fieldError(errors, 'grace')}
      <button type="submit" class="small secondary" aria-label="Roll ${label}">Roll</button>
    </form>
    ${fieldError(errors, 'form')}
  </details>`;
}

function keyRow(req: FastifyRequest, k: KeyView, state: KeysPageState): Html {
  const status = k.revoked_at
    ? html`<span class="pill err">revoked ${k.revoked_at.slice(0, 10)}</span>`
    : html`<span class="pill ok">active</span>`;
  const previous = k.previous_hint
    ? html`<br /><span class="hint">previous ${k.previous_hint} works until ${when(k.previous_until)}</span>`
    : '';
  const actions = k.revoked_at
    ? ''
    : html`${manage(req, k, state.rowErrors?.keyId === k.id ? state.rowErrors.errors : undefined)}
        <form method="post" action="/account/keys/${k.id}/revoke" class="inline">
          ${csrfField(req)}
          <button type="submit" class="danger small" aria-label="Revoke ${k.name ?? k.hint}">Revoke</button>
        </form>`;
  return html`<tr>
    <td>${k.name ?? html`<span class="hint">(made by the command line)</span>`}</td>
    <td class="mono">${k.hint}${previous}</td>
    <td><span class="pill">${k.kind}</span></td>
    <td>${when(k.created_at)}</td>
    <td>${k.last_used_at ? when(k.last_used_at) : 'never'}</td>
    <td class="num">${num(k.requests)}</td>
    <td class="num">${num(k.credits)}</td>
    <td>${status}</td>
    <td>${actions}</td>
  </tr>`;
}

export function keysBody(req: FastifyRequest, keys: KeyView[], state: KeysPageState): Html {
  const fresh = state.secret
    ? html`<div class="card">
        <h2>${state.secret.title}</h2>
        <p><strong>Copy it now: it is shown only this once.</strong> Only its hash is kept.</p>
        ${keyOnce(state.secret.key)}
      </div>`
    : '';
  const error = (f: string) => fieldError(state.errors, f);
  return html`${fresh}
    <div class="card">
      <h2>Create a key</h2>
      <form method="post" action="/account/keys" novalidate>
        ${csrfField(req)}
        <div class="row">
          <div class="field">
            <label for="key-name">Name</label>
            <input
              id="key-name"
              name="name"
              type="text"
              maxlength="60"
              required
              placeholder="production server"
            />${error('name')}
          </div>
          <fieldset class="field">
            <legend>Kind</legend>
            <div class="radios">
              <label><input type="radio" name="kind" value="live" checked /> Live</label>
              <label><input type="radio" name="kind" value="test" /> Test</label>
            </div>
            ${error('kind')}
          </fieldset>
          <div class="field"><button type="submit">Create key</button></div>
        </div>
        <p class="hint">
          Live keys spend the workspace's credits. Test keys reach the same data on their own pool of 1,000 credits a
          month.
        </p>
        ${error('form')}
      </form>
    </div>
    <div class="card">
      <h2>Keys</h2>
      <div class="table-wrap" role="region" aria-label="Keys" tabindex="0">
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Kind</th>
              <th>Created</th>
              <th>Last used</th>
              <th class="num">Requests this month</th>
              <th class="num">Credits this month</th>
              <th>Status</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${
              keys.length
                ? [...keys].reverse().map((k) => keyRow(req, k, state))
                : html`<tr>
                    <td colspan="9" class="empty">No keys yet.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
      <p class="hint">
        Usage counts the UTC month so far, within a second of each request. Rolling gives a key a new secret and keeps
        its name and usage; the old secret works for the time chosen, then is refused.
      </p>
    </div>`;
}
