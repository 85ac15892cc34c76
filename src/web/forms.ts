// Reading the web app's forms: urlencoded bodies validated by zod, each problem named by field in words a
// person reads; the CSRF check every state-changing form passes first. docs/web.md, "Forms".
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PASSWORD_MAX, PASSWORD_MIN } from '../accounts/passwords.js';
import { csrfValid } from './context.js';
import { html } from './html.js';
import { page } from './layout.js';

export const emailField = z
  .string({ error: 'Enter your email address.' })
  .trim()
  .min(1, { error: 'Enter your email address.' })
  .max(254, { error: 'An email address has at most 254 characters.' })
  .pipe(z.email({ error: 'Enter an email address such as name@example.com.' }));

export const newPasswordField = z
  .string({ error: 'Choose a password.' })
  .min(PASSWORD_MIN, { error: `Use at least ${PASSWORD_MIN} characters.` })
  .max(PASSWORD_MAX, { error: `Use at most ${PASSWORD_MAX} characters.` });

/** A password being checked, not chosen: any length the form allows. */
export const passwordField = z
  .string({ error: 'Enter your password.' })
  .min(1, { error: 'Enter your password.' })
  .max(PASSWORD_MAX, { error: 'Email or password is incorrect.' });

export type FieldErrors = Record<string, string>;

export type Parsed<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors };

/** The body's fields against `schema` (the CSRF field aside); every bad field named once. */
export function parseForm<T extends z.ZodObject>(schema: T, body: unknown): Parsed<z.output<T>> {
  const fields = typeof body === 'object' && body !== null ? { ...(body as Record<string, unknown>) } : {};
  delete fields._csrf;
  const r = schema.safeParse(fields);
  if (r.success) return { ok: true, data: r.data };
  const errors: FieldErrors = {};
  for (const issue of r.error.issues) {
    const field = issue.path.length ? String(issue.path[0]) : 'form';
    if (issue.code === 'unrecognized_keys') errors.form ??= 'The form sent fields it does not have.';
    else errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}

/** A text field of a form, as sent back for correction (never a password). */
export const sentBack = (body: unknown, field: string): string => {
  const v = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  return typeof v === 'string' ? v.slice(0, 254) : '';
};

/** Refuses a form whose CSRF token is missing or not this browser's: 403, nothing done. */
export function refuseCsrf(req: FastifyRequest, reply: FastifyReply): FastifyReply | null {
  const token = (req.body as Record<string, unknown> | undefined)?._csrf;
  if (csrfValid(req, token)) return null;
  const body = html`<div class="wrap page-narrow">
    <div class="card">
      <h1>This form has expired</h1>
      <p>It was opened in another session, or too long ago. Go back, reload the page and send it again.</p>
      <p><a class="button secondary" href="/">Home</a></p>
    </div>
  </div>`;
  return reply
    .code(403)
    .type('text/html; charset=utf-8')
    .send(page(req, { title: 'Form expired', body }));
}

/** A 429 page: too many attempts from here (or at this address), with when to retry. */
export function throttled(req: FastifyRequest, reply: FastifyReply, seconds: number): FastifyReply {
  const body = html`<div class="wrap page-narrow">
    <div class="card">
      <h1>Too many attempts</h1>
      <p role="alert">Please wait ${seconds} seconds, then try again.</p>
    </div>
  </div>`;
  return reply
    .code(429)
    .header('retry-after', String(seconds))
    .type('text/html; charset=utf-8')
    .send(page(req, { title: 'Too many attempts', body }));
}

/** Ids this service makes (`key_`, `usr_`, `inv_`, `ws_` and 16 base-62 characters): anything else names nothing. */
export const isId = (prefix: 'key' | 'usr' | 'inv' | 'ws', s: unknown): s is string =>
  typeof s === 'string' && new RegExp(`^${prefix}_[0-9A-Za-z]{16}$`).test(s);
