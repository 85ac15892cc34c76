// Sign-up, address verification, login and logout, forgotten passwords and invitations. Every POST
// passes the CSRF check, then validation, then its throttle; answers never tell whether an address has
// an account. docs/web.md, "Accounts".
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { acceptInvitation, findInvitation } from '../accounts/members.js';
import { chooseWorkspace, endSession, loadSession, openSession } from '../accounts/sessions.js';
import { isTokenShaped } from '../accounts/tokens.js';
import { answerChallenge, openChallenge, requiresSecondFactor } from '../accounts/two-factor.js';
import { getWorkspace } from '../accounts/workspaces.js';
import { isSelfServe } from '../billing/plan-change.js';
import {
  emailTokenOpen,
  findUser,
  issueEmailToken,
  logIn,
  normalizeEmail,
  openOwnWorkspace,
  resetPassword,
  signUp,
  verifyEmail,
} from '../accounts/users.js';
import {
  forgotPage,
  invitePage,
  linkInvalidPage,
  loginPage,
  mailSentPage,
  resetPage,
  signupPage,
  verifyPage,
  welcomePage,
} from './auth-pages.js';
import { webState, throttle, type WebDeps } from './context.js';
import { clearCookie, setCookie } from './cookies.js';
import { emailField, newPasswordField, parseForm, passwordField, refuseCsrf, sentBack, throttled } from './forms.js';
import { alreadyRegisteredMail, resetMail, verificationMail } from './mails.js';
import { secondStepPage } from './two-factor-pages.js';

/** Mails asked for one address (sign-up, new links, resets), per minute: enough to retry, too few to flood it. */
const MAILS_PER_ADDRESS_PER_MINUTE = 2;

const SignupForm = z.strictObject({
  email: emailField,
  password: newPasswordField,
  plan: z.string().refine(isSelfServe, { error: 'Choose a plan on the pricing page.' }).optional(),
});
/** A plan asked for in a link (`/signup?plan=developer`), if it is one a customer can subscribe to. */
const planOf = (raw: unknown) => (isSelfServe(raw) ? raw : null);
const LoginForm = z.strictObject({ email: emailField, password: passwordField, next: z.string().max(200).optional() });
const EmailForm = z.strictObject({ email: emailField });
const CodeForm = z.strictObject({
  challenge: z.string().refine(isTokenShaped, { error: 'Log in again.' }),
  code: z.string().trim().min(1, { error: 'Enter the code.' }).max(20, { error: 'That is not a code.' }),
});
const TokenForm = z.strictObject({ token: z.string().refine(isTokenShaped, { error: 'This link is not valid.' }) });
const ResetForm = z.strictObject({
  token: z.string().refine(isTokenShaped, { error: 'This link is not valid.' }),
  password: newPasswordField,
});

/** Where a login may send the browser next: our own account or invitation pages only (no open redirect). */
const safeNext = (next: unknown): string | null =>
  typeof next === 'string' && /^\/(account(\/[a-z-]*)?|invite\/[A-Za-z0-9_-]{43})$/.test(next) ? next : null;

const html = (reply: FastifyReply, code: number, body: string): FastifyReply =>
  reply.code(code).type('text/html; charset=utf-8').send(body);

export async function authRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock, mailer, publicBaseUrl: base } = deps;

  /** A new session for the user in this browser (any previous one of this browser ends). */
  const signIn = async (req: FastifyRequest, reply: FastifyReply, userId: string): Promise<void> => {
    const previous = webState(req).session;
    if (previous) await endSession(pool, previous);
    const { token, expiresAt } = await openSession(pool, userId, clock.now());
    setCookie(reply, deps.cookies, deps.cookies.session, token, expiresAt);
    // The page answered now is the new session's: its forms carry that session's CSRF tokens.
    const session = (await loadSession(pool, token, clock.now()))!;
    req.web = { ...webState(req), session, csrfSecret: session.csrfSecret };
  };

  app.get<{ Querystring: { plan?: unknown } }>('/signup', async (req, reply) => {
    const plan = planOf(req.query.plan);
    if (webState(req).session) return reply.redirect(plan ? '/account/billing' : '/account');
    return html(reply, 200, signupPage(req, {}, '', plan));
  });
  app.post('/signup', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const form = parseForm(SignupForm, req.body);
    const plan = planOf((req.body as Record<string, unknown> | undefined)?.plan);
    if (!form.ok) return html(reply, 400, signupPage(req, form.errors, sentBack(req.body, 'email'), plan));
    const email = normalizeEmail(form.data.email);
    const wait = await throttle(deps, req, 'signup', email, MAILS_PER_ADDRESS_PER_MINUTE);
    if (wait !== null) return throttled(req, reply, wait);
    const { user, created } = await signUp(pool, email, form.data.password, clock.now(), form.data.plan ?? null);
    if (created || !user.email_verified_at) {
      const token = await issueEmailToken(pool, user.id, 'verify', clock.now());
      await mailer.send(verificationMail(email, base, token));
    } else await mailer.send(alreadyRegisteredMail(email, base));
    return html(reply, 200, mailSentPage(req, 'Check your inbox', email, 'verify your address'));
  });

  app.get<{ Querystring: { token?: unknown } }>('/verify', async (req, reply) => {
    const token = req.query.token;
    if (!isTokenShaped(token) || !(await emailTokenOpen(pool, token, 'verify', clock.now())))
      return html(reply, 400, linkInvalidPage(req, 'verification'));
    return html(reply, 200, verifyPage(req, token));
  });
  app.post('/verify', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const form = parseForm(TokenForm, req.body);
    if (!form.ok) return html(reply, 400, linkInvalidPage(req, 'verification'));
    const verified = await verifyEmail(pool, form.data.token, deps.pepper, clock);
    if (!verified) return html(reply, 400, linkInvalidPage(req, 'verification'));
    await signIn(req, reply, verified.user.id);
    const session = webState(req).session!;
    if (verified.joined[0]) await chooseWorkspace(pool, session, verified.joined[0]);
    const joined = await Promise.all(verified.joined.map(async (id) => (await getWorkspace(pool, id)).name));
    reply.header('cache-control', 'no-store');
    return html(
      reply,
      200,
      welcomePage(req, base, {
        key: verified.opened?.key.key ?? null,
        joined,
        // Offered to the owner of the workspace just opened: a member of another's does not choose its plan.
        plan: verified.opened ? planOf(verified.intendedPlan) : null,
      }),
    );
  });
  app.post('/verify/resend', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const form = parseForm(EmailForm, req.body);
    if (!form.ok) return html(reply, 400, linkInvalidPage(req, 'verification'));
    const email = normalizeEmail(form.data.email);
    const wait = await throttle(deps, req, 'mail', email, MAILS_PER_ADDRESS_PER_MINUTE);
    if (wait !== null) return throttled(req, reply, wait);
    const user = await findUser(pool, email);
    if (user && !user.email_verified_at)
      await mailer.send(verificationMail(email, base, await issueEmailToken(pool, user.id, 'verify', clock.now())));
    return html(reply, 200, mailSentPage(req, 'Check your inbox', email, 'verify your address'));
  });

  app.get<{ Querystring: { next?: unknown; done?: unknown } }>('/login', async (req, reply) => {
    const next = safeNext(req.query.next);
    if (webState(req).session) return reply.redirect(next ?? '/account');
    const notice =
      req.query.done === 'password_reset'
        ? ({ kind: 'ok', text: 'Your password is changed. Log in with the new one.' } as const)
        : req.query.done === 'signed_out'
          ? ({ kind: 'ok', text: 'Your password is changed and every browser signed out. Log in again.' } as const)
          : null;
    return html(reply, 200, loginPage(req, { ...(next ? { next } : {}), notice }));
  });
  app.post('/login', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const next = safeNext((req.body as Record<string, unknown> | undefined)?.next);
    const form = parseForm(LoginForm, req.body);
    const email = sentBack(req.body, 'email');
    const again = (code: number, errors: Record<string, string>) =>
      html(reply, code, loginPage(req, { errors, email, ...(next ? { next } : {}) }));
    if (!form.ok) return again(400, form.errors);
    const address = normalizeEmail(form.data.email);
    const wait = await throttle(deps, req, 'login', address);
    if (wait !== null) return throttled(req, reply, wait);
    const user = await logIn(pool, address, form.data.password);
    if (!user) return again(401, { form: 'Email or password is incorrect.' });
    if (!user.email_verified_at) {
      await mailer.send(verificationMail(address, base, await issueEmailToken(pool, user.id, 'verify', clock.now())));
      return again(403, { form: 'Verify your address first: we just mailed you a new link.' });
    }
    if (await requiresSecondFactor(pool, user.id)) {
      // No session yet: the second step's token is the only thing this browser holds.
      reply.header('cache-control', 'no-store');
      return html(reply, 200, secondStepPage(req, await openChallenge(pool, user.id, next, clock.now())));
    }
    await signIn(req, reply, user.id);
    return reply.redirect(next ?? '/account', 303);
  });
  app.post('/login/code', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const form = parseForm(CodeForm, req.body);
    const challenge = sentBack(req.body, 'challenge');
    if (!form.ok && !isTokenShaped(challenge)) return reply.redirect('/login', 303);
    if (!form.ok) return html(reply, 400, secondStepPage(req, challenge, form.errors));
    const wait = await throttle(deps, req, 'login');
    if (wait !== null) return throttled(req, reply, wait);
    const outcome = await answerChallenge(pool, form.data.challenge, form.data.code, clock.now());
    if (outcome.kind === 'over')
      return html(
        reply,
        401,
        loginPage(req, { errors: { form: 'The code step expired or had too many tries: log in again.' } }),
      );
    if (outcome.kind === 'wrong')
      return html(reply, 401, secondStepPage(req, challenge, { code: 'This code is not right, or was used already.' }));
    await signIn(req, reply, outcome.userId);
    return reply.redirect(safeNext(outcome.next) ?? '/account', 303);
  });

  app.post('/logout', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const { session } = webState(req);
    if (session) await endSession(pool, session);
    clearCookie(reply, deps.cookies, deps.cookies.session);
    return reply.redirect('/', 303);
  });

  app.get('/forgot', async (req, reply) => html(reply, 200, forgotPage(req)));
  app.post('/forgot', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const form = parseForm(EmailForm, req.body);
    if (!form.ok) return html(reply, 400, forgotPage(req, form.errors, sentBack(req.body, 'email')));
    const email = normalizeEmail(form.data.email);
    const wait = await throttle(deps, req, 'mail', email, MAILS_PER_ADDRESS_PER_MINUTE);
    if (wait !== null) return throttled(req, reply, wait);
    const user = await findUser(pool, email);
    if (user) await mailer.send(resetMail(email, base, await issueEmailToken(pool, user.id, 'reset', clock.now())));
    return html(reply, 200, mailSentPage(req, 'Check your inbox', email, 'choose a new password'));
  });
  app.get<{ Querystring: { token?: unknown } }>('/reset', async (req, reply) => {
    const token = req.query.token;
    if (!isTokenShaped(token) || !(await emailTokenOpen(pool, token, 'reset', clock.now())))
      return html(reply, 400, linkInvalidPage(req, 'reset'));
    return html(reply, 200, resetPage(req, token));
  });
  app.post('/reset', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const form = parseForm(ResetForm, req.body);
    const token = sentBack(req.body, 'token');
    if (!form.ok)
      return form.errors.token
        ? html(reply, 400, linkInvalidPage(req, 'reset'))
        : html(reply, 400, resetPage(req, token, form.errors));
    const wait = await throttle(deps, req, 'reset');
    if (wait !== null) return throttled(req, reply, wait);
    const user = await resetPassword(pool, form.data.token, form.data.password, deps.pepper, clock);
    if (!user) return html(reply, 400, linkInvalidPage(req, 'reset'));
    clearCookie(reply, deps.cookies, deps.cookies.session);
    return reply.redirect('/login?done=password_reset', 303);
  });

  // A signed-in user in no workspace opens one of their own (the page of src/web/account/shared.ts offers it).
  app.post('/workspaces/own', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const { session } = webState(req);
    if (!session) return reply.redirect('/login', 303);
    const opened = await openOwnWorkspace(pool, session.userId, deps.pepper, clock);
    if (!opened) return reply.redirect('/account', 303);
    await chooseWorkspace(pool, session, opened.workspace.id);
    reply.header('cache-control', 'no-store');
    return html(reply, 201, welcomePage(req, base, { key: opened.key.key, joined: [], plan: null }));
  });

  app.get<{ Params: { token: string } }>('/invite/:token', async (req, reply) => {
    const { token } = req.params;
    const inv = isTokenShaped(token) ? await findInvitation(pool, token, clock.now()) : null;
    if (!inv) return html(reply, 404, linkInvalidPage(req, 'invitation'));
    return html(reply, 200, invitePage(req, inv, token, webState(req).session?.email ?? null));
  });
  app.post<{ Params: { token: string } }>('/invite/:token', async (req, reply) => {
    if (refuseCsrf(req, reply)) return reply;
    const { session } = webState(req);
    const { token } = req.params;
    if (!session) return reply.redirect(`/login?next=${encodeURIComponent(`/invite/${token}`)}`, 303);
    const joined = isTokenShaped(token)
      ? await acceptInvitation(pool, token, { id: session.userId, email: session.email }, clock.now(), req.ip)
      : null;
    if (!joined) return html(reply, 404, linkInvalidPage(req, 'invitation'));
    await chooseWorkspace(pool, session, joined);
    return reply.redirect('/account?done=joined', 303);
  });
}
