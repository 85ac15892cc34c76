// Monitoring from the browser (docs/web.md, "Monitoring"): on a plan with monitoring, register a real
// receiver's endpoint (a bad URL first, refused under its field), copy the secret shown once, send a test
// event and see it arrive signed with that secret and logged on the page; watch an entity, save a search,
// pause and delete the endpoint. Every page is screenshotted; no page may log an error but the refusal.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { setPlan } from '../../src/accounts/workspaces.js';
import { deliverDue } from '../../src/monitoring/delivery.js';
import { loadFixture } from '../support/fixture.js';
import { browserUnavailable, openSite, screenshot, signUpInBrowser, type Site } from './support.js';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI) throw new Error(unavailable);

const EMAIL = 'mona@example.com';

describe('monitoring in the browser', { skip: unavailable ?? false }, () => {
  let site: Site;
  let page: Page;
  let receiver: http.Server;
  const received: Array<{ body: string; signature: string }> = [];
  let hook = '';
  let secret = '';
  const text = (selector: string) => page.locator(selector).innerText();

  before(async () => {
    site = await openSite({ WEBHOOKS_ALLOW_PRIVATE: '1' });
    await loadFixture(site.t.db.pool);
    page = await site.newPage();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ body, signature: String(req.headers['x-svc-signature']) });
        res.writeHead(200).end('thanks');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/registry`;
    await signUpInBrowser(site, page, EMAIL, 'correct horse battery');
    const { rows } = await site.t.db.pool.query<{ id: string }>(
      'SELECT m.workspace_id AS id FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE u.email = $1',
      [EMAIL],
    );
    await setPlan(site.t.db.pool, rows[0]!.id, 'growth', site.t.clock);
  });
  after(async () => {
    await site?.close();
    await new Promise((r) => receiver?.close(r));
  });

  it('registers an endpoint, refusing a bad URL first, and shows the secret once', async () => {
    await page.goto(`${site.base}/account/monitoring`);
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    assert.match(await text('main'), /The URL must be an https:\/\/ URL/);
    await screenshot(page, 'monitoring-01-refused');
    site.problems.splice(0); // that 400 is expected, and only it
    await page.getByLabel('Endpoint URL').fill(hook);
    await page.getByLabel('saved_search.match').uncheck();
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    secret = await text('#new-secret');
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.match(await text('table >> nth=0'), /entity\.created, entity\.updated/);
    await screenshot(page, 'monitoring-02-secret-once');
    await page.goto(`${site.base}/account/monitoring`);
    assert.ok(!(await text('main')).includes(secret), 'the secret is not shown again');
  });

  it('sends a test event that arrives signed with that secret, logged on the page', async () => {
    await page.getByRole('button', { name: `Send a test event to ${hook}` }).click();
    assert.match(await text('.notice'), /ping event is queued/);
    await deliverDue(site.t.db.pool, { allowPrivate: true, retrySeconds: 30 }, null);
    assert.equal(received.length, 1);
    const { body, signature } = received[0]!;
    assert.equal(signature, createHmac('sha256', secret).update(body).digest('hex'));
    assert.equal(JSON.parse(body).type, 'ping');
    await page.reload();
    const log = await page.locator('.card', { hasText: 'Latest delivery attempts' }).innerText();
    assert.match(log, /200/);
    assert.match(log, /thanks/);
    await screenshot(page, 'monitoring-03-delivered');
  });

  it('watches an entity and saves a search', async () => {
    const { rows } = await site.t.db.pool.query<{ d: string; name: string }>(
      'SELECT document_number AS d, name FROM registry.entities ORDER BY document_number LIMIT 1',
    );
    await page.getByLabel('Document number').fill(rows[0]!.d);
    await page.getByRole('button', { name: 'Watch entity' }).click();
    assert.match(await text('.notice'), /entity is watched/);
    assert.match(await page.locator('.card', { hasText: 'Watched entities' }).innerText(), new RegExp(rows[0]!.d));
    await page.getByLabel('Name of this search').fill('New Miami LLCs');
    await page.getByLabel('Principal city').fill('MIAMI');
    await page.getByLabel('Entity types').fill('FLAL');
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Save search' }).click();
    assert.match(await text('.notice'), /search is saved/);
    const searches = await page.locator('.card', { hasText: 'Saved searches' }).innerText();
    assert.match(searches, /New Miami LLCs/);
    assert.match(searches, /"principal_city":"MIAMI"/);
    await screenshot(page, 'monitoring-04-watch-and-search');
  });

  it('pauses and deletes the endpoint', async () => {
    await page.getByRole('button', { name: `Pause ${hook}` }).click();
    assert.match(await text('.notice'), /is paused/);
    assert.match(await page.locator('tr', { hasText: hook }).first().innerText(), /paused by hand/);
    await screenshot(page, 'monitoring-05-paused');
    await page.getByRole('button', { name: `Delete ${hook}` }).click();
    assert.match(await text('.notice'), /deleted/);
    assert.match(await page.locator('.card', { hasText: 'Webhook endpoints' }).first().innerText(), /No endpoint yet/);
    assert.deepEqual(site.problems, []);
  });
});
