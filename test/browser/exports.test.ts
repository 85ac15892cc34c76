// Exports in the browser (docs/web.md, "Exports"): a member signs up, the workspace exports its registry through the
// API with the first key, a `registry worker` process writes the file, and the dashboard's Exports page lists the
// export with a Download button whose file is the list's every row. Screenshots go to test-results/screenshots.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { loadFixture } from '../support/fixture.js';
import { browserUnavailable, openSite, screenshot, signedUpOnPlan, workerProcess, type Site } from './support.js';

const unavailable = browserUnavailable();
// On CI Chromium is installed (.ci/run): its absence is a failure there, a stated skip elsewhere.
if (unavailable && process.env.CI) throw new Error(unavailable);

const EMAIL = 'eva@example.com';

describe('exports in the browser', { skip: unavailable ?? false }, () => {
  let site: Site;
  let page: Page;
  let worker: Awaited<ReturnType<typeof workerProcess>> | undefined;
  let dir = '';
  let key = '';

  before(async () => {
    site = await openSite();
    await loadFixture(site.t.db.pool);
    dir = await mkdtemp(path.join(tmpdir(), 'rl-exports-'));
    page = await site.newPage();
    ({ key } = await signedUpOnPlan(site, page, EMAIL, 'pro'));
    // Exports run where `registry worker` runs them: a process of its own, as in production.
    worker = await workerProcess(site, dir);
  });
  after(async () => {
    await worker?.stop();
    await site?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists the export with its progress and downloads its file with the Download button', async () => {
    const api = (url: string, init: RequestInit = {}) =>
      fetch(`${site.base}${url}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
    const created = await api('/v1/exports', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'searchEntities', params: { sort: 'name_asc' }, format: 'csv' }),
    });
    assert.equal(created.status, 200, await created.clone().text());
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    let status = 'queued';
    for (let i = 0; i < 600 && (status === 'queued' || status === 'running'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = ((await (await api(`/v1/exports/${id}`)).json()) as { data: { status: string } }).data.status;
    }
    assert.equal(status, 'completed');

    await page.goto(`${site.base}/account/exports`);
    const row = page.locator(`tr[data-export="${id}"]`);
    assert.match(await row.innerText(), /completed/);
    await screenshot(page, 'exports-laptop');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('link', { name: 'Download' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `${id}.csv.gz`);
    const rows = parse(gunzipSync(await readFile((await download.path())!)), { columns: true }) as Array<{
      document_number: string;
    }>;
    const listed = (await (await api('/v1/entities/search?sort=name_asc&limit=500')).json()) as {
      data: Array<{ document_number: string }>;
      pagination: { total: number };
    };
    assert.equal(rows.length, listed.pagination.total);
    assert.deepEqual(
      rows.slice(0, listed.data.length).map((r) => r.document_number),
      listed.data.map((r) => r.document_number),
    );
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'exports-phone');
  });
});
