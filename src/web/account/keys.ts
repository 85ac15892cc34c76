// API keys: create a live or test key with a name (shown once, on the answer to the form), rename a key, roll it (a
// new secret shown once; the old one works for the grace chosen), revoke it (the very next request with it is a 401).
// Each change is in the audit log with the member who made it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { addKey, keysWithUsage, renameKey, revokeKeyAs, rollKey, ROLL_GRACES } from '../../accounts/key-admin.js';
import type { WebDeps } from '../context.js';
import { isId, parseForm } from '../forms.js';
import { KEY_ONCE_SCRIPTS } from '../key-once.js';
import type { Notice } from '../layout.js';
import { confirmationCard, isConfirmed } from './confirm.js';
import { keysBody, type KeysPageState } from './keys-page.js';
import { actorOf, memberOf, noticeFrom, render, type Member } from './shared.js';

/** Live and test keys a workspace may hold unrevoked (a leaked session cannot mint keys without end). */
const MAX_ACTIVE_KEYS = 25;

const keyName = z
  .string({ error: 'Name the key.' })
  .trim()
  .min(1, { error: 'Name the key, e.g. "production server".' })
  .max(60, { error: 'A key name has at most 60 characters.' })
  .refine((s) => !/[\u0000-\u001f]/.test(s), { error: 'A key name cannot hold control characters.' });

const CreateKey = z.strictObject({
  name: keyName,
  kind: z.enum(['live', 'test'], { error: 'Choose live or test.' }),
});
const RenameKey = z.strictObject({ name: keyName });
const RollKey = z.strictObject({
  grace: z.enum(Object.keys(ROLL_GRACES) as [keyof typeof ROLL_GRACES], {
    error: 'Choose how long the current secret keeps working: now, 1 hour, 24 hours or 7 days.',
  }),
});

const NOTICES: Record<string, Notice> = {
  key_revoked: { kind: 'ok', text: 'The key is revoked: requests made with it are refused from now on.' },
  key_renamed: { kind: 'ok', text: 'The key is renamed.' },
  no_such_key: { kind: 'error', text: 'This workspace has no such active key.' },
};

export async function keyRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock, pepper } = deps;

  const page = async (
    req: FastifyRequest,
    reply: FastifyReply,
    m: Member,
    state: KeysPageState,
    o: { status?: number; notice?: Notice | null } = {},
  ) =>
    render(req, reply, deps, m, {
      title: 'API keys',
      section: '/account/keys',
      body: keysBody(req, await keysWithUsage(pool, m.workspaceId, clock.now()), state),
      ...(state.secret ? { scripts: KEY_ONCE_SCRIPTS } : {}),
      ...o,
    });

  app.get('/account/keys', async (req, reply) =>
    page(req, reply, memberOf(req), {}, { notice: noticeFrom(req, NOTICES) }),
  );

  app.post('/account/keys', async (req, reply) => {
    const m = memberOf(req);
    const form = parseForm(CreateKey, req.body);
    const keys = await keysWithUsage(pool, m.workspaceId, clock.now());
    const errors = form.ok ? {} : form.errors;
    if (form.ok && keys.filter((k) => !k.revoked_at).length >= MAX_ACTIVE_KEYS)
      errors.form = `A workspace holds at most ${MAX_ACTIVE_KEYS} active keys: revoke one first.`;
    if (!form.ok || errors.form) return page(req, reply, m, { errors }, { status: 400 });
    const made = await addKey(pool, m.workspaceId, form.data.kind, form.data.name, pepper, clock, actorOf(req, m));
    return page(
      req,
      reply,
      m,
      { secret: { title: 'Your new key', key: made.key } },
      { status: 201, notice: { kind: 'ok', text: `Key "${form.data.name}" created.` } },
    );
  });

  app.post<{ Params: { id: string } }>('/account/keys/:id/rename', async (req, reply) => {
    const m = memberOf(req);
    const id = req.params.id;
    if (!isId('key', id)) return reply.redirect('/account/keys?done=no_such_key', 303);
    const form = parseForm(RenameKey, req.body);
    if (!form.ok) return page(req, reply, m, { rowErrors: { keyId: id, errors: form.errors } }, { status: 400 });
    const done = await renameKey(pool, m.workspaceId, id, form.data.name, clock, actorOf(req, m));
    return reply.redirect(`/account/keys?done=${done ? 'key_renamed' : 'no_such_key'}`, 303);
  });

  app.post<{ Params: { id: string } }>('/account/keys/:id/roll', async (req, reply) => {
    const m = memberOf(req);
    const id = req.params.id;
    if (!isId('key', id)) return reply.redirect('/account/keys?done=no_such_key', 303);
    const form = parseForm(RollKey, req.body);
    if (!form.ok) return page(req, reply, m, { rowErrors: { keyId: id, errors: form.errors } }, { status: 400 });
    const rolled = await rollKey(pool, m.workspaceId, id, form.data.grace, pepper, clock, actorOf(req, m));
    if (!rolled) return reply.redirect('/account/keys?done=no_such_key', 303);
    const until = form.data.grace === 'none' ? 'The previous secret is refused from now on.' : 'See below until when.';
    return page(
      req,
      reply,
      m,
      { secret: { title: "The key's new secret", key: rolled.key } },
      { notice: { kind: 'ok', text: `The key has a new secret. ${until}` } },
    );
  });

  app.post<{ Params: { id: string } }>('/account/keys/:id/revoke', async (req, reply) => {
    const m = memberOf(req);
    const id = req.params.id;
    const key = isId('key', id)
      ? (await keysWithUsage(pool, m.workspaceId, clock.now())).find((k) => k.id === id && !k.revoked_at)
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
    const done = await revokeKeyAs(pool, m.workspaceId, key.id, clock, actorOf(req, m));
    return reply.redirect(`/account/keys?done=${done ? 'key_revoked' : 'no_such_key'}`, 303);
  });
}
