// Accounts in the web app: sign-up refused with clear messages on bad input, verification links used
// once, no account enumeration (sign-up, login, reset answer alike), login throttling, CSRF on every
// form, session cookies and their end (logout, password change, reset), security headers.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { testApp, type TestApp } from './support/app.js';
import { count, lastMail, linkToken, mails, WebClient } from './support/web.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());
// Each test starts with the per-minute throttles empty (the clock is the limiter's).
beforeEach(() => t.clock.advance(61_000));

describe('sign-up', () => {
  it('refuses bad input with a message per field, and creates nothing', async () => {
    const c = new WebClient(t, '10.0.0.1');
    await c.get('/signup');
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ email: 'not-an-address', password: 'long enough password' }, /Enter an email address such as/],
      [{ email: 'x@example.com', password: 'short' }, /Use at least 10 characters/],
      [{ email: '', password: '' }, /Enter your email address[\s\S]*Use at least 10 characters/],
      [{ email: `${'a'.repeat(250)}@example.com`, password: 'long enough password' }, /at most 254 characters/],
      [{ email: 'x@example.com', password: 'p'.repeat(201) }, /Use at most 200 characters/],
    ];
    for (const [fields, message] of cases) {
      const res = await c.post('/signup', fields);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.body, message);
    }
    assert.match((await c.post('/signup', { email: 'x@example.com' })).body, /Choose a password/);
    const extra = await c.post('/signup', { email: 'x@example.com', password: 'long enough password', admin: '1' });
    assert.equal(extra.statusCode, 400);
    assert.equal(await count(t, 'users'), 0);
  });

  it('verifies the address once: the workspace opens on the trial and shows its first key once', async () => {
    const c = new WebClient(t, '10.0.0.2');
    const key = await c.signUp('grace@example.com');
    const res = await t.get('/v1/account/usage', key);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.plan, 'free_trial');
    assert.equal(res.json().data.monthly_quota, 500);
    // The link works once.
    const token = linkToken(await lastMail(t, 'grace@example.com', /Verify/), 'verify');
    await c.get(`/verify?token=${token}`);
    const again = await c.post('/verify', { token });
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /no longer valid/);
    assert.doesNotMatch(again.body, /svc_live_/);
    const { rows } = await t.db.pool.query(
      `SELECT m.role, w.plan FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
       JOIN users u ON u.id = m.user_id WHERE u.email = 'grace@example.com'`,
    );
    assert.deepEqual(rows, [{ role: 'owner', plan: 'free_trial' }]);
  });

  it('answers a taken address exactly like a new one, and mails its owner instead', async () => {
    const c = new WebClient(t, '10.0.0.3');
    await c.get('/signup');
    const taken = await c.post('/signup', { email: 'Grace@Example.com', password: 'another password!' });
    const fresh = await c.post('/signup', { email: 'hopper@example.com', password: 'another password!' });
    const strip = (s: string) =>
      s.replace(/grace@example\.com|hopper@example\.com/gi, 'X').replace(/_csrf" value="[^"]+"/g, '');
    assert.equal(taken.statusCode, fresh.statusCode);
    assert.equal(strip(taken.body), strip(fresh.body));
    assert.match((await lastMail(t, 'grace@example.com', /account/)).text, /already has an account/);
  });
});

describe('login', () => {
  it('says the same for an unknown address and a wrong password', async () => {
    const c = new WebClient(t, '10.0.1.1');
    const unknown = await c.logIn('nobody@example.com', 'whatever password');
    const wrong = await c.logIn('grace@example.com', 'wrong password!!');
    assert.equal(unknown.statusCode, 401);
    assert.equal(wrong.statusCode, 401);
    const msg = (s: string) => /role="alert">([^<]*)</.exec(s)?.[1];
    assert.equal(msg(unknown.body), 'Email or password is incorrect.');
    assert.equal(msg(wrong.body), msg(unknown.body));
  });

  it('throttles password attempts per address, from any client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const c = new WebClient(t, `10.0.2.${i}`);
      statuses.push((await c.logIn('hopper@example.com', `guess number ${i}`)).statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
    const c = new WebClient(t, '10.0.2.99');
    const res = await c.logIn('hopper@example.com', 'another password!');
    assert.equal(res.statusCode, 429, 'even the right password waits');
    assert.ok(Number(res.headers['retry-after']) > 0);
  });

  it('refuses an unverified address until it is verified, and mails a new link', async () => {
    const c = new WebClient(t, '10.0.1.2');
    const res = await c.logIn('hopper@example.com', 'another password!');
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Verify your address first/);
    assert.equal(c.cookies.size, 1, 'only the signed-out CSRF cookie');
  });

  it('opens a session with an httpOnly SameSite cookie; logout ends it on the server', async () => {
    const c = new WebClient(t, '10.0.1.3');
    const res = await c.logIn('grace@example.com');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/account');
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /^rl_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=.*; HttpOnly; SameSite=Lax$/);
    assert.equal((await c.get('/account')).statusCode, 200);
    const stolen = c.cookieHeader;
    await c.post('/logout');
    assert.equal((await c.get('/account')).statusCode, 303);
    const replay = await t.app.http.inject({ method: 'GET', url: '/account', headers: { cookie: stolen } });
    assert.equal(replay.statusCode, 303, 'the old cookie opens nothing');
  });

  it('sends the browser on only to its own account and invitation pages', async () => {
    const c = new WebClient(t, '10.0.1.4');
    await c.get('/login');
    const evil = await c.post('/login', {
      email: 'grace@example.com',
      password: 'correct horse battery',
      next: '//evil.example',
    });
    assert.equal(evil.headers.location, '/account');
    const d = new WebClient(t, '10.0.1.5');
    await d.get('/login');
    const keys = await d.post('/login', {
      email: 'grace@example.com',
      password: 'correct horse battery',
      next: '/account/keys',
    });
    assert.equal(keys.headers.location, '/account/keys');
  });
});

describe('CSRF', () => {
  it("refuses a form without this browser's token, and does nothing", async () => {
    const c = new WebClient(t, '10.0.3.1');
    await c.get('/signup');
    const missing = await c.post('/signup', {
      _csrf: '',
      email: 'mallory@example.com',
      password: 'long enough password',
    });
    assert.equal(missing.statusCode, 403);
    const other = new WebClient(t, '10.0.3.2');
    await other.get('/signup');
    const foreign = await c.post('/signup', {
      _csrf: other.csrf,
      email: 'mallory@example.com',
      password: 'long enough password',
    });
    assert.equal(foreign.statusCode, 403);
    assert.equal((await t.db.pool.query(`SELECT 1 FROM users WHERE email = 'mallory@example.com'`)).rowCount, 0);

    await c.logIn('grace@example.com');
    const keysBefore = await count(t, 'api_keys');
    const forged = await c.post('/account/keys', { _csrf: other.csrf, name: 'forged', kind: 'live' });
    assert.equal(forged.statusCode, 403);
    assert.equal(await count(t, 'api_keys'), keysBefore);
  });
});

describe('passwords', () => {
  it('a change ends every other session; this browser stays signed in', async () => {
    const a = new WebClient(t, '10.0.4.1');
    const b = new WebClient(t, '10.0.4.2');
    await a.logIn('grace@example.com');
    await b.logIn('grace@example.com');
    await a.get('/account/settings');
    const wrong = await a.post('/account/settings/password', {
      current: 'not it at all',
      password: 'brand new password',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /This is not your current password/);
    const ok = await a.post('/account/settings/password', {
      current: 'correct horse battery',
      password: 'brand new password',
    });
    assert.equal(ok.statusCode, 303);
    assert.equal((await a.get('/account')).statusCode, 200);
    assert.equal((await b.get('/account')).statusCode, 303, 'the other browser is signed out');
    assert.equal((await new WebClient(t, '10.0.4.3').logIn('grace@example.com', 'brand new password')).statusCode, 303);
  });

  it('a reset link sets a password once and ends every session; an unknown address: the same answer', async () => {
    const signedIn = new WebClient(t, '10.0.5.1');
    await signedIn.logIn('grace@example.com', 'brand new password');
    const c = new WebClient(t, '10.0.5.2');
    await c.get('/forgot');
    const before = (await mails(t)).length;
    const unknown = await c.post('/forgot', { email: 'nobody@example.com' });
    assert.equal((await mails(t)).length, before, 'no mail for an address without an account');
    const known = await c.post('/forgot', { email: 'grace@example.com' });
    assert.equal(unknown.statusCode, known.statusCode);
    assert.equal(unknown.body.replace(/nobody@example\.com/g, 'X'), known.body.replace(/grace@example\.com/g, 'X'));
    const token = linkToken(await lastMail(t, 'grace@example.com', /Reset/), 'reset');
    await c.get(`/reset?token=${token}`);
    assert.match((await c.post('/reset', { token, password: 'short' })).body, /Use at least 10 characters/);
    const done = await c.post('/reset', { token, password: 'reset password one' });
    assert.equal(done.headers.location, '/login?done=password_reset');
    assert.equal((await c.post('/reset', { token, password: 'reset password two' })).statusCode, 400, 'used once');
    assert.equal((await signedIn.get('/account')).statusCode, 303, 'sessions ended');
    assert.equal((await new WebClient(t, '10.0.5.3').logIn('grace@example.com', 'reset password one')).statusCode, 303);
  });
});

describe('headers', () => {
  it('pages carry the security headers; assets are served locally', async () => {
    const res = await t.get('/');
    assert.equal(res.statusCode, 200);
    assert.match(
      String(res.headers['content-security-policy']),
      /default-src 'self';script-src 'self';style-src 'self'/,
    );
    assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'same-origin');
    assert.equal(res.headers['strict-transport-security'], undefined, 'not over plain HTTP');
    for (const src of res.body.matchAll(/(?:src|href)="(\/assets\/[^"?]+)/g)) {
      assert.equal((await t.get(src[1]!)).statusCode, 200, src[1]);
    }
    assert.doesNotMatch(res.body, /(src|href)="https?:\/\//, 'nothing from another host');
    const api = await t.get('/v1/sample');
    assert.equal(api.headers['content-security-policy'], undefined, "the API answers without the pages' headers");
  });

  it('behind TLS the session cookie is Secure and __Host- named, with HSTS', async () => {
    const tls = await testApp({ env: { PUBLIC_BASE_URL: 'https://lookup.example.com' } });
    try {
      const c = new WebClient(tls, '10.0.6.1');
      const res = await c.get('/signup');
      assert.match(
        String(res.headers['set-cookie']),
        /^__Host-rl_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      );
      assert.match(String(res.headers['strict-transport-security']), /max-age=31536000/);
    } finally {
      await tls.close();
    }
  });
});
