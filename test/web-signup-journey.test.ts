// The way in without dead ends (docs/web.md, "Accounts"): a plan chosen on the pricing page is carried through
// sign-up and offered after verification, and each spent link says what it was and offers its own way on.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { testApp, type TestApp } from './support/app.js';
import { count, lastMail, linkToken, WebClient } from './support/web.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());
beforeEach(() => t.clock.advance(61_000));

describe('the plan chosen on the pricing page', () => {
  it('is carried through sign-up and offered, in one step, after verification', async () => {
    const c = new WebClient(t, '10.2.0.1');
    const pricing = await c.get('/pricing');
    assert.match(pricing.body, /href="\/signup\?plan=developer"/);
    const signup = await c.get('/signup?plan=developer');
    assert.match(signup.body, /You chose the <strong>Developer<\/strong> plan/);
    assert.match(signup.body, /name="plan" value="developer"/);
    await c.post('/signup', { email: 'dana@example.com', password: 'correct horse battery', plan: 'developer' });
    const token = linkToken(await lastMail(t, 'dana@example.com', /Verify/), 'verify');
    await c.get(`/verify?token=${token}`);
    const welcome = await c.post('/verify', { token });
    assert.match(welcome.body, /id="new-key">svc_live_/, 'the trial and its key, as for anyone');
    assert.match(welcome.body, /<form method="post" action="\/account\/billing\/plan">/);
    assert.match(welcome.body, /name="plan" value="developer"/);
    // The offer's form is the new session's: it goes through to the plan change (a local checkout here).
    const subscribe = await c.post('/account/billing/plan', { plan: 'developer' });
    assert.equal(subscribe.statusCode, 303, subscribe.body);
    assert.match(String(subscribe.headers.location), /checkout/);
    const { rows } = await t.db.pool.query(`SELECT intended_plan FROM users WHERE email = 'dana@example.com'`);
    assert.deepEqual(rows, [{ intended_plan: null }], 'offered once');
  });

  it('refuses a plan that is not on sale, and creates nothing; ignores one in a link', async () => {
    const c = new WebClient(t, '10.2.0.2');
    const signup = await c.get('/signup?plan=enterprise');
    assert.doesNotMatch(signup.body, /You chose/);
    const before = await count(t, 'users');
    for (const plan of ['enterprise', 'free_trial', 'gold']) {
      const res = await c.post('/signup', { email: 'erin@example.com', password: 'correct horse battery', plan });
      assert.equal(res.statusCode, 400, plan);
      assert.match(res.body, /Choose a plan on the pricing page/);
    }
    assert.equal(await count(t, 'users'), before);
  });
});

describe('spent links', () => {
  it('a used reset link shows no form: it says so and offers a new one', async () => {
    const c = new WebClient(t, '10.2.0.3');
    await c.signUp('finn@example.com');
    const fresh = new WebClient(t, '10.2.0.4');
    await fresh.get('/forgot');
    await fresh.post('/forgot', { email: 'finn@example.com' });
    const token = linkToken(await lastMail(t, 'finn@example.com', /password/i), 'reset');
    assert.match((await fresh.get(`/reset?token=${token}`)).body, /name="password"/);
    const done = await fresh.post('/reset', { token, password: 'another good password' });
    assert.equal(done.statusCode, 303);
    const again = await fresh.get(`/reset?token=${token}`);
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /Password reset links work once/);
    assert.match(again.body, /action="\/forgot"/);
    assert.doesNotMatch(again.body, /name="password"|verification link/);
  });

  it('a used verification link says so before its button, and offers a new link', async () => {
    const c = new WebClient(t, '10.2.0.5');
    await c.signUp('gus@example.com');
    const token = linkToken(await lastMail(t, 'gus@example.com', /Verify/), 'verify');
    const again = await new WebClient(t, '10.2.0.6').get(`/verify?token=${token}`);
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /Verification links work once/);
    assert.match(again.body, /Send a new verification link/);
  });

  it('an invitation link no longer open asks for a new invitation, not a verification link', async () => {
    const res = await new WebClient(t, '10.2.0.7').get(`/invite/${'A'.repeat(43)}`);
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /Ask\s+the owner to invite you again/);
    assert.doesNotMatch(res.body, /verification link/);
  });
});
