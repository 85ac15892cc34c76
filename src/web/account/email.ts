// Asking to change the account's address, from Settings (docs/web.md, "Changing the address"): the password, then a
// link mailed to the new address; the old one is told. The page says the same whether the address is free or not.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requestEmailChange } from '../../accounts/email-change.js';
import { throttle, type WebDeps } from '../context.js';
import { emailField, parseForm, passwordField, throttled } from '../forms.js';
import { emailChangeMail, emailChangeNotice, emailTakenMail } from '../mails.js';
import { showSettings } from './settings.js';
import { memberOf } from './shared.js';

/** Change mails a user may ask for a minute: enough to fix a typo, too few to flood an address. */
const CHANGES_PER_MINUTE = 2;

const EmailChange = z.strictObject({ new_email: emailField, email_password: passwordField });

export async function emailRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock, mailer, publicBaseUrl: base } = deps;
  app.post('/account/settings/email', async (req, reply) => {
    const { session } = memberOf(req);
    const form = parseForm(EmailChange, req.body);
    if (!form.ok) return showSettings(req, reply, deps, { status: 400, errors: form.errors });
    const wait = await throttle(deps, req, 'email_change', session.userId, CHANGES_PER_MINUTE);
    if (wait !== null) return throttled(req, reply, wait);
    const { new_email: to, email_password: password } = form.data;
    const asked = await requestEmailChange(pool, session.userId, password, to, clock.now());
    if (asked.kind === 'wrong_password')
      return showSettings(req, reply, deps, {
        status: 400,
        errors: { email_password: 'This is not your password.' },
      });
    if (asked.kind === 'same')
      return showSettings(req, reply, deps, { status: 400, errors: { new_email: 'This is your address already.' } });
    await mailer.send(asked.token ? emailChangeMail(asked.newEmail, base, asked.token) : emailTakenMail(to, base));
    await mailer.send(emailChangeNotice(asked.oldEmail, asked.newEmail, false));
    return reply.redirect('/account/settings?done=email_sent', 303);
  });
}
