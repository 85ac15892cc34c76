// A new customer's whole journey in a real browser (Debian's Chromium through playwright-core): sign up,
// read the verification mail from a real SMTP server, verify, log out and in by keyboard, create a key,
// call the API with it, see the usage chart and the balance move, buy a pack on the local checkout,
// revoke the key (401 at once), try the playground, log out. Every page is screenshotted under
// test-results/screenshots, and no page may log an error (a CSP refusal, a failed asset, a script error).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserUnavailable, openSite, screenshot, type Site } from './support.js';

const unavailable = browserUnavailable();
// On CI Chromium is installed (.ci/run): its absence is a failure there, a stated skip elsewhere.
if (unavailable && process.env.CI) throw new Error(unavailable);

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';

describe('a customer in the browser', { skip: unavailable ?? false }, () => {
  let site: Site;
  let page: Page;
  let key = '';
  const api = (path: string, k: string) => fetch(`${site.base}${path}`, { headers: { authorization: `Bearer ${k}` } });
  /** Reloads `path` until `ok` holds of the page (request logs are written within a second). */
  const until = async (path: string, ok: () => Promise<boolean>) => {
    for (let i = 0; i < 30; i++) {
      await page.goto(`${site.base}${path}`);
      if (await ok()) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.fail(`${path} never showed what was expected`);
  };
  const text = (selector: string) => page.locator(selector).innerText();

  before(async () => {
    site = await openSite();
    page = await site.newPage();
  });
  after(async () => {
    await site?.close();
  });

  it('signs up from the landing page and verifies the address from the mail', async () => {
    await page.goto(`${site.base}/`);
    await screenshot(page, '01-landing');
    assert.match(await page.locator('footer').innerText(), /Not a consumer report/);
    await page.getByRole('link', { name: 'Start free: 500 credits' }).click();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.match(await text('main'), /Use at least 10 characters/);
    await screenshot(page, '02-signup-refused');
    // That answer is a 400, which the browser reports: expected here, and here only.
    site.problems.splice(0);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.match(await text('main'), /Check your inbox/);

    const mail = await site.mail.mail(EMAIL, /Verify/);
    const link = /https?:\/\/\S+\/verify\?token=\S+/.exec(mail.text)?.[0];
    assert.ok(link?.startsWith(site.base), mail.text);
    await page.goto(link!);
    await page.getByRole('button', { name: 'Verify and continue' }).click();
    key = await text('#new-key');
    assert.match(key, /^svc_live_[0-9A-Za-z]{32}$/);
    await screenshot(page, '03-welcome-first-key');
    assert.equal((await api('/v1/entities/search?name=acme', key)).status, 200);
  });

  it('logs out, then in again with the keyboard alone', async () => {
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${site.base}/`);
    // The first Tab of a page reaches the skip link.
    await page.goto(`${site.base}/pricing`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent), 'Skip to content');
    await page.goto(`${site.base}/account`);
    assert.match(page.url(), /\/login\?next=/);
    // The address field has the focus when the page opens: the browser applies `autofocus` at its next rendering
    // after the load, so the test waits for it (a read right after the load can come first on a busy machine).
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'email', null, {
      timeout: 5_000,
    });
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${site.base}/account`);
    assert.match(await text('h1'), /Overview/);
  });

  it('creates a key, calls the API with it, and sees usage and balance move', async () => {
    await page.goto(`${site.base}/account/keys`);
    await page.getByLabel('Name', { exact: true }).fill('ci server');
    await page.getByRole('button', { name: 'Create key' }).click();
    key = await text('#new-key');
    assert.match(key, /^svc_live_/);
    await screenshot(page, '04-keys-created');
    for (let i = 0; i < 3; i++) assert.equal((await api('/v1/entities/search?name=sunshine', key)).status, 200);
    // 1 call with the first key and 3 with this one: 4 metered requests, 496 credits left.
    const restCalls = async () => {
      const raw = await page.locator('#usage-chart').getAttribute('data-days');
      const days = JSON.parse(raw!) as Array<{ rest: number }>;
      return days.reduce((n, d) => n + d.rest, 0);
    };
    await until('/account', async () => (await text('#balance')) === '496' && (await restCalls()) === 4);
    assert.ok(await page.evaluate(() => Boolean((globalThis as any).Chart?.getChart('usage-chart'))), 'no chart drawn');
    await screenshot(page, '05-overview-usage');
  });

  it('buys a credit pack on the local checkout and sees the balance', async () => {
    await page.goto(`${site.base}/account/billing`);
    await page.getByLabel('Pack').selectOption('starter');
    await page.getByRole('button', { name: 'Buy pack' }).click();
    assert.match(page.url(), /\/checkout\/chk_/);
    await screenshot(page, '06-checkout');
    await page.getByRole('button', { name: /Pay \$5\.00/ }).click();
    assert.match(await text('main'), /Paid on/);
    await page.getByRole('link', { name: 'Back to your account' }).click();
    assert.equal(await text('#packs-remaining'), '1,000');
    assert.equal(await text('#billing-balance'), '1,496');
    await screenshot(page, '07-billing');
  });

  it('rolls the key: the old secret works beside the new one for the hour chosen', async () => {
    await page.goto(`${site.base}/account/keys`);
    const row = page.locator('tr', { hasText: 'ci server' });
    await row.getByText('Manage').click();
    await row.getByRole('combobox').selectOption('1h');
    await page.getByRole('button', { name: 'Roll ci server' }).click();
    const fresh = await text('#new-key');
    assert.match(fresh, /^svc_live_/);
    assert.notEqual(fresh, key);
    assert.match(await text('table'), /works until/);
    await screenshot(page, '07b-key-rolled');
    assert.equal((await api('/v1/account/usage', key)).status, 200);
    assert.equal((await api('/v1/account/usage', fresh)).status, 200);
    key = fresh;
  });

  it('revokes the key: the API answers 401 at once', async () => {
    await page.goto(`${site.base}/account/keys`);
    await page.getByRole('button', { name: 'Revoke ci server' }).click();
    // A confirmation first (test/web-polish.test.ts: the key works until it is given).
    assert.match(await text('.confirm h2'), /Revoke the key "ci server"/);
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    assert.match(await text('.notice'), /revoked/);
    assert.equal((await api('/v1/entities/search?name=sunshine', key)).status, 401);
    await screenshot(page, '08-keys-revoked');
  });

  it('runs an operation in the playground through the session', async () => {
    await page.goto(`${site.base}/account/playground`);
    await page.getByLabel('name', { exact: true }).first().fill('sunshine');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('#pg-status', { hasText: /^200 / }).waitFor();
    assert.ok(JSON.parse(await text('#pg-output')).meta.request_id);
    await screenshot(page, '09-playground');
    await until('/account/logs', async () => /playground/.test(await text('table')));
    await page.getByLabel('Route').fill('/api/v1');
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = await page.locator('tbody tr').count();
    assert.equal(rows, 1, 'the proxy call alone');
    await screenshot(page, '10-request-log');
  });

  it('shows the members and settings pages, then logs out', async () => {
    await page.goto(`${site.base}/account/members`);
    assert.match(await text('table'), new RegExp(EMAIL));
    await screenshot(page, '11-members');
    await page.goto(`${site.base}/account/settings`);
    await screenshot(page, '12-settings');
    for (const p of ['/pricing', '/data-coverage', '/docs']) {
      await page.goto(`${site.base}${p}`);
      if (p === '/docs') await page.locator('#swagger-ui .opblock').first().waitFor();
      await screenshot(page, `13-public${p.replace('/', '-')}`);
    }
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${site.base}/`);
    await page.goto(`${site.base}/account`);
    assert.match(page.url(), /\/login/);
    assert.deepEqual(site.problems, []);
  });
});
