// Setting up and turning off two-factor login from Settings (docs/web.md, "Two-factor login"). Each form is the
// signed-in user's own; a wrong code or password is shown under its field and changes nothing.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { confirmSetup, disable, pendingSetup, startSetup } from '../../accounts/two-factor.js';
import { throttle, type WebDeps } from '../context.js';
import { parseForm, passwordField, throttled } from '../forms.js';
import { recoveryCodesBody, setupBody } from '../two-factor-pages.js';
import { showSettings } from './settings.js';
import { memberOf } from './shared.js';

const code = z.string().trim().min(1, { error: 'Enter the code.' }).max(20, { error: 'That is not a code.' });
const ConfirmForm = z.strictObject({ code });
const DisableForm = z.strictObject({ password: passwordField, code });

export async function twoFactorRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock } = deps;

  app.post('/account/settings/two-factor/setup', async (req, reply) => {
    const { session } = memberOf(req);
    const setup = await startSetup(pool, session.userId, session.email);
    if (!setup) return reply.redirect('/account/settings', 303);
    reply.header('cache-control', 'no-store');
    return showSettings(req, reply, deps, { twoFactor: await setupBody(req, setup.secret, setup.uri) });
  });

  app.post('/account/settings/two-factor/confirm', async (req, reply) => {
    const { session } = memberOf(req);
    const setup = await pendingSetup(pool, session.userId, session.email);
    if (!setup) return reply.redirect('/account/settings', 303);
    const again = async (errors: Record<string, string>) =>
      showSettings(req, reply, deps, { status: 400, twoFactor: await setupBody(req, setup.secret, setup.uri, errors) });
    const form = parseForm(ConfirmForm, req.body);
    if (!form.ok) return again(form.errors);
    const wait = await throttle(deps, req, 'password', session.userId);
    if (wait !== null) return throttled(req, reply, wait);
    const codes = await confirmSetup(pool, session.userId, session.email, form.data.code, clock.now());
    if (!codes) return again({ code: 'This code does not match: check the app’s clock, and try the next code.' });
    reply.header('cache-control', 'no-store');
    return showSettings(req, reply, deps, { twoFactor: recoveryCodesBody(codes) });
  });

  app.post('/account/settings/two-factor/disable', async (req, reply) => {
    const { session } = memberOf(req);
    const form = parseForm(DisableForm, req.body);
    if (!form.ok) return showSettings(req, reply, deps, { status: 400, errors: form.errors });
    const wait = await throttle(deps, req, 'password', session.userId);
    if (wait !== null) return throttled(req, reply, wait);
    if (!(await disable(pool, session.userId, form.data.password, form.data.code, clock.now())))
      return showSettings(req, reply, deps, {
        status: 400,
        errors: { code: 'The password or the code is not right.' },
      });
    return reply.redirect('/account/settings?done=two_factor_off', 303);
  });
}
