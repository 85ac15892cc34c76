// Every public and dashboard page in Chromium at a laptop's size (1366x900) and a phone's (390x844): the page never
// scrolls sideways, the navigation is reachable (the top bar's menu on a phone, by keyboard too), the request log
// shows its last column, the pricing cards keep "/ month" and their buttons on one line, and axe-core finds no
// serious or critical accessibility violation. Screenshots of each page at each size go to test-results/screenshots.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { browserUnavailable, openSite, screenshot, signUpInBrowser, type Site } from './support.js';

const unavailable = browserUnavailable();
// On CI Chromium is installed (.ci/run): its absence is a failure there, a stated skip elsewhere.
if (unavailable && process.env.CI) throw new Error(unavailable);

/** axe-core's own bundle, evaluated in the page (the pages' CSP allows no injected script tag, rightly). */
const AXE = axe.source;

const SIZES = [
  { name: 'laptop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const PUBLIC = [
  '/',
  '/pricing',
  '/docs',
  '/data-coverage',
  '/login',
  '/signup',
  '/forgot',
  '/terms',
  '/privacy',
  '/refunds',
  '/contact',
];
const DASHBOARD = [
  '/account',
  '/account/keys',
  '/account/billing',
  '/account/logs',
  '/account/audit',
  '/account/monitoring',
  '/account/matching',
  '/account/exports',
  '/account/playground',
  '/account/members',
  '/account/settings',
];
/** The impacts that fail the test; axe's "moderate" and "minor" are reported, not gated. */
const GATED_IMPACTS = ['serious', 'critical'];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

const shotName = (size: string, path: string) =>
  `layout-${size}-${path.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'home'}`;

/** How far the page scrolls sideways, in CSS pixels (0: it does not). */
const sideways = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });

async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations as AxeViolation[];
  });
  return found.filter((v) => GATED_IMPACTS.includes(v.impact ?? ''));
}

const describeViolations = (vs: AxeViolation[]) =>
  vs.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n');

describe('every page at a laptop and a phone size', { skip: unavailable ?? false }, () => {
  let site: Site;
  let page: Page;

  before(async () => {
    site = await openSite();
    page = await site.newPage();
    const key = await signUpInBrowser(site, page, 'layout@example.com', 'correct horse battery');
    // Rows for the request log: answers, a 404 and a refusal.
    for (const path of ['/v1/entities/search?name=sunshine', '/v1/entities/X0000000000', '/v1/filings/daily?date=x'])
      await fetch(`${site.base}${path}`, { headers: { authorization: `Bearer ${key}` } });
    await new Promise((r) => setTimeout(r, 1200));
  });
  after(async () => {
    await site?.close();
  });

  for (const size of SIZES)
    for (const path of [...PUBLIC, ...DASHBOARD])
      it(`${path} at ${size.width}x${size.height}: no sideways scroll, no serious axe violation`, async () => {
        await page.setViewportSize({ width: size.width, height: size.height });
        const res = await page.goto(`${site.base}${path}`);
        assert.equal(res?.status(), 200, path);
        if (path === '/docs') await page.locator('.swagger-ui .opblock').first().waitFor();
        if (path === '/account') await page.locator('#usage-chart').waitFor();
        await screenshot(page, shotName(size.name, path));
        assert.equal(await sideways(page), 0, `${path} scrolls sideways at ${size.width} px`);
        const violations = await axeViolations(page);
        assert.equal(violations.length, 0, describeViolations(violations));
        assert.deepEqual(site.problems, []);
      });

  it('answers an unknown address with an error page that fits a phone and passes axe', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const res = await page.goto(`${site.base}/account/nothing-here`);
    assert.equal(res?.status(), 404);
    assert.match(await page.locator('h1').innerText(), /Page not found/);
    await screenshot(page, 'layout-phone-not-found');
    assert.equal(await sideways(page), 0);
    assert.deepEqual(await axeViolations(page), []);
    // The browser reports the 404 itself: expected here, and here only.
    site.problems.splice(0);
    await page.getByRole('link', { name: 'Back to your account' }).click();
    await page.waitForURL(`${site.base}/account`);
  });

  it('copies a new key with its Copy button, and asks before revoking it', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.base });
    await page.goto(`${site.base}/account/keys`);
    await page.locator('#key-name').fill('phone key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.locator('#new-key').innerText();
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText()), secret);
    await screenshot(page, 'layout-phone-key-copied');
    assert.deepEqual(await axeViolations(page), []);
    await page.getByRole('button', { name: 'Revoke phone key' }).click();
    await screenshot(page, 'layout-phone-revoke-confirm');
    assert.equal(await sideways(page), 0);
    assert.deepEqual(await axeViolations(page), []);
    await page.getByRole('link', { name: 'Keep the key' }).click();
    const api = await fetch(`${site.base}/v1/account/usage`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(api.status, 200, 'kept');
  });

  it('reaches every public page from the menu on a phone, by keyboard, without JavaScript needed', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${site.base}/data-coverage`);
    assert.equal(await page.locator('nav[aria-label="Main"]').isVisible(), false);
    const summary = page.locator('.menu summary');
    assert.ok(await summary.isVisible());
    // Tab from the top of the page (skip link, brand) to the menu, open it with Enter, follow a link with Enter.
    for (let i = 0; i < 5 && !(await summary.evaluate((e) => e === (globalThis as any).document.activeElement)); i++)
      await page.keyboard.press('Tab');
    assert.ok(await summary.evaluate((e) => e === (globalThis as any).document.activeElement), 'the menu takes focus');
    await page.keyboard.press('Enter');
    const menu = page.locator('nav[aria-label="Menu"]');
    for (const label of ['Pricing', 'Docs', 'Data coverage', 'Account', 'Log out'])
      assert.ok(await menu.getByText(label, { exact: true }).isVisible(), label);
    await screenshot(page, 'layout-phone-menu-open');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${site.base}/pricing`);
    // The account's sections are all on screen above the content.
    await page.goto(`${site.base}/account/billing`);
    for (const label of [
      'Overview',
      'API keys',
      'Billing',
      'Request log',
      'Monitoring',
      'Matching',
      'Playground',
      'Members',
      'Settings',
    ])
      assert.ok(await page.locator('nav[aria-label="Account"]').getByRole('link', { name: label }).isVisible(), label);
    // On a laptop the menu gives way to the top bar's links.
    await page.setViewportSize({ width: 1366, height: 900 });
    assert.equal(await summary.isVisible(), false);
    assert.ok(await page.locator('nav[aria-label="Main"]').getByRole('link', { name: 'Pricing' }).isVisible());
  });

  it('shows the request log whole, its Credits column included, at 1366 and 1920 px', async () => {
    for (const width of [1366, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${site.base}/account/logs`);
      const box = page.locator('.table-wrap');
      const cut = await box.evaluate((e) => e.scrollWidth - e.clientWidth);
      assert.equal(cut, 0, `the log's table is ${cut} px wider than its box at ${width} px`);
      const credits = await page.getByRole('columnheader', { name: 'Credits' }).boundingBox();
      const edge = await box.boundingBox();
      assert.ok(credits && edge && credits.x + credits.width <= edge.x + edge.width + 0.5);
      await screenshot(page, `layout-${width}-logs`);
    }
  });

  it("keeps each pricing card's price and button on one line at both sizes", async () => {
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.goto(`${site.base}/pricing`);
      for (const selector of ['.plan .price', '.plan .button']) {
        // The lines each element's text takes: its text boxes grouped by vertical overlap.
        const lines = await page.locator(selector).evaluateAll((els) =>
          els.map((e) => {
            const range = (globalThis as any).document.createRange();
            range.selectNodeContents(e);
            const rects = [...(range.getClientRects() as Iterable<{ top: number; bottom: number; width: number }>)]
              .filter((r) => r.width > 0)
              .sort((a, b) => a.top - b.top);
            let n = 0;
            let bottom = -Infinity;
            for (const r of rects) {
              if (r.top >= bottom - 1) {
                n++;
                bottom = r.bottom;
              } else bottom = Math.max(bottom, r.bottom);
            }
            return n;
          }),
        );
        assert.ok(lines.length >= 5, selector);
        assert.deepEqual(
          lines,
          lines.map(() => 1),
          `${selector} at ${size.width} px: lines ${lines.join(', ')}`,
        );
      }
    }
  });
});
