// API keys: create a live or test key with a name (shown once, on the answer to the form), see each
// key's prefix, creation and last use, revoke (the very next request with it is a 401).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createKey, listKeys, revokeWorkspaceKey, type ApiKeyInfo } from '../../accounts/workspaces.js';
import type { WebDeps } from '../context.js';
import { isId, parseForm, type FieldErrors } from '../forms.js';
import { html, when, type Html } from '../html.js';
import { keyOnce, KEY_ONCE_SCRIPTS } from '../key-once.js';
import { csrfField, type Notice } from '../layout.js';
import { confirmationCard, isConfirmed } from './confirm.js';
import { memberOf, noticeFrom, render } from './shared.js';

/** Live and test keys a workspace may hold unrevoked (a leaked session cannot mint keys without end). */
const MAX_ACTIVE_KEYS = 25;

const CreateKey = z.strictObject({
  name: z
    .string({ error: 'Name the key.' })
    .trim()
    .min(1, { error: 'Name the key, e.g. "production server".' })
    .max(60, { error: 'A key name has at most 60 characters.' })
    .refine((s) => !/[\u0000-\u001f]/.test(s), { error: 'A key name cannot hold control characters.' }),
  kind: z.enum(['live', 'test'], { error: 'Choose live or test.' }),
});

const NOTICES: Record<string, Notice> = {
  key_revoked: { kind: 'ok', text: 'The key is revoked: requests made with it are refused from now on.' },
  no_such_key: { kind: 'error', text: 'This workspace has no such active key.' },
};

function keyRow(req: FastifyRequest, k: ApiKeyInfo): Html {
  const state = k.revoked_at
    ? html`<span class="pill err">revoked ${k.revoked_at.slice(0, 10)}</span>`
    : html`<span class="pill ok">active</span>`;
  const revoke = k.revoked_at
    ? ''
    : html`<form method="post" action="/account/keys/${k.id}/revoke" class="inline">
        ${csrfField(req)}
        <button type="submit" class="danger small" aria-label="Revoke ${k.name ?? k.hint}">Revoke</button>
      </form>`;
  return html`<tr>
    <td>${k.name ?? html`<span class="hint">(made by the command line)</span>`}</td>
    <td class="mono">${k.hint}</td>
    <td><span class="pill">${k.kind}</span></td>
    <td>${when(k.created_at)}</td>
    <td>${k.last_used_at ? when(k.last_used_at) : 'never'}</td>
    <td>${state}</td>
    <td>${revoke}</td>
  </tr>`;
}

function keysBody(req: FastifyRequest, keys: ApiKeyInfo[], errors: FieldErrors, created: string | null): Html {
  const fresh = created
    ? html`<div class="card">
        <h2>Your new key</h2>
        <p><strong>Copy it now: it is shown only this once.</strong> Only its hash is kept.</p>
        ${keyOnce(created)}
      </div>`
    : '';
  const error = (f: string) => (errors[f] ? html`<p class="hint field-error" role="alert">${errors[f]}</p>` : '');
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
              <th>Status</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${
              keys.length
                ? [...keys].reverse().map((k) => keyRow(req, k))
                : html`<tr>
                    <td colspan="7" class="empty">No keys yet.</td>
                  </tr>`
            }
          </tbody>
        </table>
      </div>
    </div>`;
}

export async function keyRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock, pepper } = deps;

  app.get('/account/keys', async (req, reply) => {
    const m = memberOf(req);
    const keys = await listKeys(pool, m.workspaceId);
    return render(req, reply, deps, m, {
      title: 'API keys',
      section: '/account/keys',
      body: keysBody(req, keys, {}, null),
      notice: noticeFrom(req, NOTICES),
    });
  });

  app.post('/account/keys', async (req, reply) => {
    const m = memberOf(req);
    const form = parseForm(CreateKey, req.body);
    let keys = await listKeys(pool, m.workspaceId);
    const active = keys.filter((k) => !k.revoked_at).length;
    const errors: FieldErrors = form.ok ? {} : form.errors;
    if (form.ok && active >= MAX_ACTIVE_KEYS)
      errors.form = `A workspace holds at most ${MAX_ACTIVE_KEYS} active keys: revoke one first.`;
    if (!form.ok || errors.form)
      return render(req, reply, deps, m, {
        title: 'API keys',
        section: '/account/keys',
        status: 400,
        body: keysBody(req, keys, errors, null),
      });
    const key = await createKey(pool, m.workspaceId, form.data.kind, pepper, clock, form.data.name);
    keys = await listKeys(pool, m.workspaceId);
    return render(req, reply, deps, m, {
      title: 'API keys',
      section: '/account/keys',
      status: 201,
      body: keysBody(req, keys, {}, key.key),
      scripts: KEY_ONCE_SCRIPTS,
      notice: { kind: 'ok', text: `Key "${form.data.name}" created.` },
    });
  });

  app.post<{ Params: { id: string } }>('/account/keys/:id/revoke', async (req, reply) => {
    const m = memberOf(req);
    const id = req.params.id;
    const key = isId('key', id)
      ? (await listKeys(pool, m.workspaceId)).find((k) => k.id === id && !k.revoked_at)
      : null;
    if (!key) return reply.redirect('/account/keys?done=no_such_key', 303);
    // The first post asks: revoking cannot be undone, and the key's clients fail from the next request.
    if (!isConfirmed(req.body))
      return render(req, reply, deps, m, {
        title: 'API keys',
        section: '/account/keys',
        body: confirmationCard(req, {
          question: `Revoke the key "${key.name ?? key.hint}" (${key.hint})?`,
          consequence:
            'Every request made with it is refused from the next one on (401). This cannot be undone: a client ' +
            'that uses it needs a new key.',
          action: `/account/keys/${key.id}/revoke`,
          button: 'Revoke the key',
          back: { href: '/account/keys', label: 'Keep the key' },
        }),
      });
    const done = await revokeWorkspaceKey(pool, m.workspaceId, key.id, clock);
    return reply.redirect(`/account/keys?done=${done ? 'key_revoked' : 'no_such_key'}`, 303);
  });
}
