// Following the link that moves an account to a new address (docs/web.md, "Changing the address"): a page with a
// button (a mail scanner opening the link changes nothing), then the change; the old address is told.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { confirmEmailChange, emailChangeOpen } from '../accounts/email-change.js';
import { isTokenShaped } from '../accounts/tokens.js';
import { linkInvalidPage, narrow } from './auth-pages.js';
import type { WebDeps } from './context.js';
import { parseForm, refuseCsrf } from './forms.js';
import { html } from './html.js';
import { csrfField } from './layout.js';
import { emailChangeNotice } from './mails.js';

const TokenForm = z.strictObject({ token: z.string().refine(isTokenShaped) });

export async function emailConfirmRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock, mailer } = deps;
  const send = (code: number, body: string) => (reply: import('fastify').FastifyReply) =>
    reply.code(code).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);

  app.get<{ Querystring: { token?: unknown } }>('/email/confirm', async (req, reply) => {
    const { token } = req.query;
    if (!isTokenShaped(token) || !(await emailChangeOpen(pool, token, clock.now())))
      return send(400, linkInvalidPage(req, 'email_change'))(reply);
    const page = narrow(
      req,
      'Confirm your new address',
      html`<h1>Confirm your new address</h1>
        <p>One click to use this address for your Registry Lookup account.</p>
        <form method="post" action="/email/confirm">
          ${csrfField(req)}<input type="hidden" name="token" value="${token}" />
          <button type="submit" autofocus>Use this address</button>
        </form>`,
    );
    return send(200, page)(reply);
  });

  app.post('/email/confirm', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const form = parseForm(TokenForm, req.body);
    const done = form.ok ? await confirmEmailChange(pool, form.data.token, clock.now()) : null;
    if (!done) return send(400, linkInvalidPage(req, 'email_change'))(reply);
    await mailer.send(emailChangeNotice(done.oldEmail, done.newEmail, true));
    const page = narrow(
      req,
      'Address changed',
      html`<h1>Address changed</h1>
        <p>Your account now uses <strong>${done.newEmail}</strong>: log in with it from now on.</p>
        <p><a class="button" href="/account/settings">Settings</a></p>`,
    );
    return send(200, page)(reply);
  });
}
