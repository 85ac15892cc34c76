// The web app's error pages (a browser gets a page in the site's layout, the API keeps its envelope), the
// redirects of a trailing slash and a case variant, and the legal and contact pages with the configured operator.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config/index.js';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

/** What Chromium sends for a page. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const COMPANY = {
  COMPANY_NAME: 'Sunshine Data LLC',
  COMPANY_ADDRESS: '100 Main St; Miami, FL 33101',
  SUPPORT_EMAIL: 'help@sunshine.example.com',
  SALES_EMAIL: 'deals@sunshine.example.com',
  LEGAL_EMAIL: 'counsel@sunshine.example.com',
};

let t: TestApp;
before(async () => {
  t = await testApp({ env: COMPANY });
});
after(() => t.close());

describe('error pages', () => {
  it('answers an unknown page address with a 404 page in the layout, with a way back', async () => {
    for (const path of ['/terms-of-use', '/nowhere/at/all', '/account/nothing-here']) {
      const res = await t.get(path, undefined, BROWSER);
      assert.equal(res.statusCode, 404, path);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body, /<h1>Page not found<\/h1>/);
      assert.ok(res.body.includes(`There is no page at ${path}.`));
      assert.match(res.body, /href="\/">Back to the home page<\/a>/);
      assert.match(res.body, /Not a consumer report/);
      assert.match(res.body, /Request id <code>req_\w{24}<\/code>/);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
    }
  });

  it('keeps the JSON envelope for the API and for clients that do not ask for HTML', async () => {
    for (const [path, headers] of [
      ['/v1/nothing', BROWSER],
      ['/api/v1/nothing', BROWSER],
      ['/mcp/nothing', BROWSER],
      ['/nowhere', {}],
      ['/nowhere', { accept: '*/*' }],
      ['/nowhere', { accept: 'application/json, text/html' }],
    ] as const) {
      const res = await t.get(path, undefined, headers);
      assert.equal(res.statusCode, 404, path);
      assert.match(String(res.headers['content-type']), /^application\/json/, `${path} ${JSON.stringify(headers)}`);
      assert.equal(res.json().error.code, 'not_found');
    }
  });

  it('redirects a trailing slash and a case variant of a page to the page, keeping the query', async () => {
    for (const [from, to] of [
      ['/account/', '/account'],
      ['/pricing/', '/pricing'],
      ['/Pricing', '/pricing'],
      ['/DOCS/?x=1', '/docs?x=1'],
      ['/account/Keys', '/account/keys'],
    ]) {
      const res = await t.get(from!, undefined, BROWSER);
      assert.equal(res.statusCode, 301, from);
      assert.equal(res.headers.location, to);
    }
    // A token in a path keeps its case, an API path keeps its 404, and `//host` is never a target.
    assert.equal((await t.get('/Invite/AbC', undefined, BROWSER)).statusCode, 404);
    assert.equal((await t.get('/v1/Status', undefined, BROWSER)).statusCode, 404);
    assert.equal((await t.get('//evil.example/', undefined, BROWSER)).statusCode, 404);
  });

  it('answers a form too large with a 413 page and changes nothing', async () => {
    const c = new WebClient(t);
    await c.get('/signup');
    const email = 'big@example.com';
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/signup',
      headers: { ...BROWSER, cookie: c.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: c.csrf, email, password: 'x'.repeat(40_000) }).toString(),
    });
    assert.equal(res.statusCode, 413);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /That was too much to send/);
    assert.match(res.body, /nothing was saved/);
    const { rows } = await t.db.pool.query('SELECT 1 FROM users WHERE email = $1', [email]);
    assert.equal(rows.length, 0);
    // The same post without a browser's Accept keeps the envelope.
    const api = await t.app.http.inject({
      method: 'POST',
      url: '/signup',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'password=' + 'x'.repeat(40_000),
    });
    assert.equal(api.statusCode, 413);
    assert.equal(api.json().error.code, 'bad_request');
  });
});

describe('legal and contact pages', () => {
  it('names the configured operator and addresses, linked from every footer', async () => {
    const pages = {
      '/terms': /Terms of service/,
      '/privacy': /Privacy/,
      '/refunds': /Refund policy/,
      '/contact': /Contact/,
    };
    for (const [path, title] of Object.entries(pages)) {
      const res = await t.get(path, undefined, BROWSER);
      assert.equal(res.statusCode, 200, path);
      assert.match(res.body, title);
      assert.match(res.body, /Operated by Sunshine Data LLC/);
      for (const link of ['/terms', '/privacy', '/refunds', '/contact']) assert.ok(res.body.includes(`href="${link}"`));
    }
    const contact = (await t.get('/contact')).body;
    for (const address of [COMPANY.SUPPORT_EMAIL, COMPANY.SALES_EMAIL, COMPANY.LEGAL_EMAIL])
      assert.ok(contact.includes(`href="mailto:${address}"`), address);
    assert.match(contact, /100 Main St<br \/>Miami, FL 33101/);
    assert.match((await t.get('/terms')).body, /not a consumer report/i);
    assert.match((await t.get('/refunds')).body, /paid less than 14 days ago and at most\s+10%/);
    const pricing = (await t.get('/pricing')).body;
    assert.ok(pricing.includes('href="mailto:deals@sunshine.example.com"'));
    assert.ok(!/registry-lookup\.example/.test(pricing));
  });

  it('reads the addresses from the environment: development defaults, required in production, checked', () => {
    const dev = loadConfig({}).company;
    assert.equal(dev.supportEmail, 'support@registry-lookup.invalid');
    assert.equal(dev.postalAddress, null);
    assert.equal(loadConfig({ SUPPORT_EMAIL: 'a@example.com' }).company.salesEmail, 'a@example.com');
    assert.throws(() => loadConfig({ SALES_EMAIL: 'not an address' }), /SALES_EMAIL must be an email address/);
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/registry',
      API_KEY_PEPPER: 'pepper',
      SMTP_URL: 'smtp://mail.example.com:587',
      CHECKOUT_PROVIDER: 'local',
    };
    assert.throws(() => loadConfig(production), /COMPANY_NAME and SUPPORT_EMAIL are required in production/);
    assert.equal(loadConfig({ ...production, ...COMPANY }).company.name, 'Sunshine Data LLC');
  });
});
