// Two-factor login (docs/web.md, "Two-factor login"): set up from Settings with a first code, recovery codes shown
// once, the login's second step (a code works once, a recovery code once, five tries), and turned off only with
// the password and a code. Codes are computed here by the otpauth library from the secret the page shows, at the
// test clock's time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());

const EMAIL = 'hana@example.com';
let secret = '';
let recovery: string[] = [];

const code = (offsetSteps = 0): string =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({
    timestamp: t.clock.now().getTime() + offsetSteps * 30_000,
  });
const enabled = async (): Promise<boolean> =>
  (await t.db.pool.query(`SELECT totp_enabled_at IS NOT NULL AS on FROM users WHERE email = $1`, [EMAIL])).rows[0].on;

/** Logs in with the password: the second step's page (its challenge read from the form). */
async function firstStep(c: WebClient, freshMinute = true): Promise<string> {
  // A new minute: the login throttles (5 a minute an address) start again.
  if (freshMinute) t.clock.advance(61_000);
  const res = await c.logIn(EMAIL);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.body, /Enter your code/);
  assert.equal((await c.get('/account')).statusCode, 303, 'no session before the code');
  return /name="challenge" value="([^"]+)"/.exec(res.body)![1]!;
}

describe('two-factor login', () => {
  it('is set up from Settings with a first code; the recovery codes are shown once', async () => {
    const owner = new WebClient(t, '10.3.0.1');
    await owner.signUp(EMAIL);
    const settings = await owner.get('/account/settings');
    assert.match(settings.body, /Set up two-factor login/);
    const setup = await owner.post('/account/settings/two-factor/setup');
    assert.equal(setup.statusCode, 200);
    assert.match(setup.body, /<svg[^>]*>[\s\S]*<\/svg>/, 'the QR code, drawn on the page');
    secret = /<code class="mono">([A-Z2-7]+)<\/code>/.exec(setup.body)![1]!;
    const wrong = await owner.post('/account/settings/two-factor/confirm', { code: code(5) });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /This code does not match/);
    assert.equal(await enabled(), false);
    const on = await owner.post('/account/settings/two-factor/confirm', { code: code() });
    assert.equal(on.statusCode, 200, on.body);
    recovery = [...on.body.matchAll(/<li>([0-9a-f]{5}-[0-9a-f]{5})<\/li>/g)].map((m) => m[1]!);
    assert.equal(recovery.length, 10);
    assert.equal(await enabled(), true);
    const later = await owner.get('/account/settings');
    assert.match(later.body, /10 of 10 recovery codes left/);
    assert.doesNotMatch(later.body, new RegExp(recovery[0]!), 'shown only once');
  });

  it('asks for a code after the password; a code works once, a recovery code once', async () => {
    const c = new WebClient(t, '10.3.0.2');
    let challenge = await firstStep(c);
    const wrong = await c.post('/login/code', { challenge, code: code(5) });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /This code is not right/);
    const right = await c.post('/login/code', { challenge, code: code() });
    assert.equal(right.statusCode, 303);
    assert.equal(right.headers.location, '/account');
    assert.equal((await c.get('/account')).statusCode, 200);
    // The same code again, from another browser within its step: refused.
    const other = new WebClient(t, '10.3.0.3');
    challenge = await firstStep(other, false);
    assert.equal((await other.post('/login/code', { challenge, code: code() })).statusCode, 401);
    // A recovery code, typed loosely, once.
    const loose = recovery[0]!.toUpperCase().replace('-', ' ');
    assert.equal((await other.post('/login/code', { challenge, code: loose })).statusCode, 303);
    const third = new WebClient(t, '10.3.0.4');
    challenge = await firstStep(third);
    assert.equal((await third.post('/login/code', { challenge, code: recovery[0]! })).statusCode, 401);
  });

  it('ends the step after five wrong tries, and refuses a forged challenge', async () => {
    const c = new WebClient(t, '10.3.0.5');
    const challenge = await firstStep(c);
    for (let i = 0; i < 4; i++) assert.equal((await c.post('/login/code', { challenge, code: '12' })).statusCode, 401);
    const fifth = await c.post('/login/code', { challenge, code: '12' });
    assert.match(fifth.body, /log in again/);
    assert.equal((await c.post('/login/code', { challenge, code: code() })).statusCode, 401, 'over, whatever the code');
    assert.equal((await c.get('/account')).statusCode, 303);
    const forged = await c.post('/login/code', { challenge: 'x'.repeat(43), code: code() });
    assert.match(forged.body, /log in again/);
  });

  it('turns off only with the password and a code', async () => {
    const c = new WebClient(t, '10.3.0.6');
    const challenge = await firstStep(c);
    t.clock.advance(30_000);
    await c.post('/login/code', { challenge, code: code() });
    await c.get('/account/settings');
    const bad = await c.post('/account/settings/two-factor/disable', { password: 'not my password', code: code() });
    assert.equal(bad.statusCode, 400);
    assert.equal(await enabled(), true);
    t.clock.advance(30_000);
    const off = await c.post('/account/settings/two-factor/disable', {
      password: 'correct horse battery',
      code: code(),
    });
    assert.equal(off.headers.location, '/account/settings?done=two_factor_off');
    assert.equal(await enabled(), false);
    t.clock.advance(61_000);
    const plain = await new WebClient(t, '10.3.0.7').logIn(EMAIL);
    assert.equal(plain.statusCode, 303, 'the password alone again');
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM recovery_codes r JOIN users u ON u.id = r.user_id WHERE u.email = $1`,
      [EMAIL],
    );
    assert.equal(rows[0].n, 0);
  });
});
