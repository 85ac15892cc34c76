// Changing the account's address (docs/web.md, "Changing the address"): asked with the password, done by the link
// mailed to the new address, the old address told twice; a wrong password, the same address or a taken one change
// nothing, and the old address's links stop working.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { testApp, type TestApp } from './support/app.js';
import { lastMail, linkToken, mails, WebClient } from './support/web.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const changeToken = (text: string): string => /\/email\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(text)![1]!;
const emailOf = async (like: string): Promise<string[]> =>
  (
    await t.db.pool.query<{ email: string }>('SELECT email FROM users WHERE email LIKE $1 ORDER BY email', [like])
  ).rows.map((r) => r.email);

describe('changing the address', () => {
  it('refuses a wrong password and the same address, changing nothing', async () => {
    const c = new WebClient(t, '10.4.0.1');
    await c.signUp('ivy@example.com');
    await c.get('/account/settings');
    const wrong = await c.post('/account/settings/email', {
      new_email: 'ivy2@example.com',
      email_password: 'nope nope nope',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /This is not your password/);
    const same = await c.post('/account/settings/email', {
      new_email: 'IVY@example.com',
      email_password: 'correct horse battery',
    });
    assert.match(same.body, /This is your address already/);
    const bad = await c.post('/account/settings/email', { new_email: 'not an address', email_password: 'x' });
    assert.equal(bad.statusCode, 400);
    assert.ok(!(await mails(t)).some((m) => m.to === 'ivy2@example.com'));
    assert.deepEqual(await emailOf('ivy%'), ['ivy@example.com']);
  });

  it('moves the account once the link mailed to the new address is followed; the old address is told', async () => {
    const c = new WebClient(t, '10.4.0.2');
    await c.signUp('jack@example.com');
    await c.get('/forgot');
    await c.post('/forgot', { email: 'jack@example.com' });
    const oldReset = linkToken(await lastMail(t, 'jack@example.com', /password/i), 'reset');
    await c.get('/account/settings');
    const asked = await c.post('/account/settings/email', {
      new_email: 'jack.new@example.com',
      email_password: 'correct horse battery',
    });
    assert.equal(asked.headers.location, '/account/settings?done=email_sent');
    assert.match((await lastMail(t, 'jack@example.com', /A change of your/)).text, /jack\.new@example\.com/);
    assert.deepEqual(await emailOf('jack%'), ['jack@example.com'], 'nothing changes before the link');
    const token = changeToken((await lastMail(t, 'jack.new@example.com', /Confirm your new/)).text);
    const page = await new WebClient(t, '10.4.0.3').get(`/email/confirm?token=${token}`);
    assert.match(page.body, /Use this address/);
    const stranger = new WebClient(t, '10.4.0.3');
    await stranger.get(`/email/confirm?token=${token}`);
    const done = await stranger.post('/email/confirm', { token });
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /now uses <strong>jack\.new@example\.com/);
    assert.deepEqual(await emailOf('jack%'), ['jack.new@example.com']);
    await lastMail(t, 'jack@example.com', /was changed/);
    assert.equal((await stranger.post('/email/confirm', { token })).statusCode, 400, 'once');
    // The old address's reset link is spent; the new address logs in.
    assert.equal((await c.get(`/reset?token=${oldReset}`)).statusCode, 400);
    assert.equal((await new WebClient(t, '10.4.0.4').logIn('jack.new@example.com')).statusCode, 303);
  });

  it('says the same for a taken address, mails its owner, and changes nothing', async () => {
    const a = new WebClient(t, '10.4.0.5');
    await a.signUp('kim@example.com');
    await new WebClient(t, '10.4.0.6').signUp('lee@example.com');
    await a.get('/account/settings');
    const asked = await a.post('/account/settings/email', {
      new_email: 'lee@example.com',
      email_password: 'correct horse battery',
    });
    assert.equal(asked.headers.location, '/account/settings?done=email_sent');
    const told = await lastMail(t, 'lee@example.com', /Your Registry Lookup account/);
    assert.match(told.text, /already has one/);
    assert.doesNotMatch(told.text, /email\/confirm/);
    assert.deepEqual(await emailOf('kim%'), ['kim@example.com']);
  });
});
