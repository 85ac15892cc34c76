// Deleting (docs/web.md, "Deleting"): the owner deletes the workspace (its keys stop, members go, the ledger stays),
// a user deletes their account (signed out, address freed, own workspaces deleted); a wrong password or an unticked
// box changes nothing, and a member cannot delete the workspace.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { testApp, type TestApp } from './support/app.js';
import { lastMail, linkToken, WebClient } from './support/web.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(() => t.close());
beforeEach(() => t.clock.advance(61_000));

const PASSWORD = 'correct horse battery';
const workspaceOf = async (email: string) =>
  (
    await t.db.pool.query<{ id: string; deleted: boolean }>(
      `SELECT w.id, w.deleted_at IS NOT NULL AS deleted FROM workspaces w
       WHERE w.name = $1 ORDER BY w.created_at LIMIT 1`,
      [email],
    )
  ).rows[0]!;

describe('deleting', () => {
  it('a wrong password, an unticked box or a member change nothing', async () => {
    const owner = new WebClient(t, '10.5.0.1');
    const key = await owner.signUp('mia@example.com');
    await owner.get('/account/settings');
    const wrong = await owner.post('/account/settings/delete-workspace', {
      delete_password: 'wrong one!',
      confirm: 'yes',
    });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /This is not your password/);
    const unticked = await owner.post('/account/settings/delete-account', { delete_password: PASSWORD });
    assert.equal(unticked.statusCode, 400);
    assert.match(unticked.body, /Tick the box to confirm/);
    assert.equal((await t.get('/v1/account/usage', key)).statusCode, 200);
    // A member: no workspace form, and the route refuses.
    await owner.post('/account/members', { email: 'ned@example.com' });
    const member = new WebClient(t, '10.5.0.2');
    await member.get('/signup');
    await member.post('/signup', { email: 'ned@example.com', password: PASSWORD });
    const token = linkToken(await lastMail(t, 'ned@example.com', /Verify/), 'verify');
    await member.get(`/verify?token=${token}`);
    await member.post('/verify', { token });
    const settings = await member.get('/account/settings');
    assert.doesNotMatch(settings.body, /Delete this workspace/);
    const refused = await member.post('/account/settings/delete-workspace', {
      delete_password: PASSWORD,
      confirm: 'yes',
    });
    assert.equal(refused.statusCode, 403);
    assert.equal((await workspaceOf('mia@example.com')).deleted, false);
  });

  it('the owner deletes the workspace: keys stop, members go, the ledger stays', async () => {
    const owner = new WebClient(t, '10.5.0.1');
    await owner.logIn('mia@example.com');
    const ws = await workspaceOf('mia@example.com');
    const ledger = async () =>
      (
        await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1', [
          ws.id,
        ])
      ).rows[0]!.n;
    const before = await ledger();
    assert.ok(before > 0);
    await owner.get('/account/settings');
    const done = await owner.post('/account/settings/delete-workspace', { delete_password: PASSWORD, confirm: 'yes' });
    assert.equal(done.statusCode, 303);
    assert.equal((await workspaceOf('mia@example.com')).deleted, true);
    const { rows } = await t.db.pool.query(
      `SELECT (SELECT count(*)::int FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL) AS live_keys,
              (SELECT count(*)::int FROM workspace_members WHERE workspace_id = $1) AS members`,
      [ws.id],
    );
    assert.deepEqual(rows, [{ live_keys: 0, members: 0 }]);
    assert.equal(await ledger(), before, 'the ledger is kept');
    const after = await owner.get('/account');
    assert.equal(after.statusCode, 403);
    assert.match(after.body, /You are in no workspace/);
    assert.equal((await owner.post('/workspaces/own')).statusCode, 303, 'no second trial for the address');
  });

  it('a user deletes their account: signed out, address freed, own workspaces deleted', async () => {
    const c = new WebClient(t, '10.5.0.3');
    const key = await c.signUp('ora@example.com');
    await c.get('/account/settings');
    const settings = await c.get('/account/settings');
    assert.match(settings.body, /deleted with it: <strong>ora@example.com<\/strong>/);
    const done = await c.post('/account/settings/delete-account', { delete_password: PASSWORD, confirm: 'yes' });
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /Your account is deleted/);
    assert.equal((await c.get('/account')).statusCode, 303, 'signed out');
    assert.equal((await t.get('/v1/account/usage', key)).statusCode, 401, 'its keys stop');
    assert.equal((await new WebClient(t, '10.5.0.4').logIn('ora@example.com')).statusCode, 401);
    const { rows } = await t.db.pool.query(`SELECT count(*)::int AS n FROM users WHERE email = 'ora@example.com'`);
    assert.equal(rows[0].n, 0, 'the address is free');
    assert.equal((await workspaceOf('ora@example.com')).deleted, true);
  });
});
