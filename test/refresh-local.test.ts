// The refresh from a local directory (a flat one, as a new user would drop files), seen through the
// API: /v1/status before and after, a day missing from the directory, a newly dropped daily file
// showing in /v1/filings/daily after the next run, and the dataset turning stale 36 hours after
// the last successful refresh.
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runJob, type JobRun } from '../src/jobs/job.js';
import { generateDataset } from '../src/sample/index.js';
import { parseCorporate } from '../src/registry/parse.js';
import { findJob } from '../src/main/jobs.js';
import { testApp, type TestApp } from './support/app.js';
import { Contract } from './support/contract.js';

describe('refresh from a local directory', () => {
  let t: TestApp;
  let contract: Contract;
  let generated: string;
  let drop: string;
  let key: string;

  before(async () => {
    generated = await mkdtemp(path.join(tmpdir(), 'rl-refresh-gen-'));
    drop = await mkdtemp(path.join(tmpdir(), 'rl-refresh-drop-'));
    // Five workdays, 2026-03-02 to 03-06, after a snapshot of 2026-03-01.
    await generateDataset({ entities: 3000, outDir: generated, seed: 5, days: 5, endDate: '2026-03-06', workers: 0 });
    t = await testApp({ now: new Date().toISOString(), env: { REGISTRY_SOURCE: drop, REFRESH_RETRY_SECONDS: '0' } });
    contract = new Contract((await t.get('/v1/openapi.json')).json());
    key = (await t.workspace('pro')).key.key;
  });
  after(async () => {
    await t?.close();
    await rm(generated, { recursive: true, force: true });
    await rm(drop, { recursive: true, force: true });
  });

  const put = (...names: string[]): Promise<void[]> =>
    Promise.all(names.map((n) => copyFile(path.join(generated, n), path.join(drop, n))));

  async function refresh(): Promise<JobRun> {
    const run = await runJob(
      findJob('refresh'),
      { pool: t.db.pool, config: t.config, clock: t.clock, asOf: t.clock.now(), log: () => {} },
      'manual',
    );
    t.app.services.dataset.invalidate();
    return run;
  }

  async function get(url: string, withKey = false) {
    const res = await t.get(url, withKey ? key : undefined);
    contract.check(url, res);
    return res;
  }

  const version = async (): Promise<number> =>
    (await t.db.pool.query<{ version: number }>('SELECT version FROM dataset_state')).rows[0]!.version;

  it('reports an empty dataset before any file is applied', async () => {
    const res = await get('/v1/status');
    assert.equal(res.statusCode, 200);
    const s = res.json().data;
    assert.deepEqual(
      [s.dataset_status, s.stale_since, s.last_refresh_at, s.files_applied, s.counts.entities],
      ['empty', null, null, [], 0],
    );
  });

  it('applies the files dropped in the directory; /v1/status says what and how much', async () => {
    await put('cordata.zip', 'corevent.zip', '20260302c.txt', '20260302ce.txt');
    const run = await refresh();
    assert.equal(run.status, 'succeeded', run.error ?? '');
    const s = (await get('/v1/status')).json().data;
    const exact = (
      await t.db.pool.query(
        'SELECT (SELECT count(*) FROM registry.entities) AS entities, (SELECT count(*) FROM registry.events) AS events',
      )
    ).rows[0];
    assert.equal(s.dataset_status, 'live');
    assert.equal(s.stale_since, null);
    assert.equal(s.last_refresh_at, s.last_import_at);
    assert.deepEqual(s.files_applied, [
      { file: 'cordata.zip', kind: 'quarterly_corporate', file_date: '2026-03-01' },
      { file: 'corevent.zip', kind: 'quarterly_events', file_date: '2026-03-01' },
      { file: '20260302c.txt', kind: 'daily_corporate', file_date: '2026-03-02' },
      { file: '20260302ce.txt', kind: 'daily_events', file_date: '2026-03-02' },
    ]);
    assert.deepEqual([s.counts.entities, s.counts.events], [exact.entities, exact.events]);
    assert.deepEqual([s.snapshot_date, s.newest_file_date], ['2026-03-01', '2026-03-02']);
    assert.ok(s.newest_filing_date <= '2026-03-02' && s.newest_filing_date > '2026-02-01', s.newest_filing_date);
  });

  it('holds back the files after a day missing from the directory, and applies them once it is dropped', async () => {
    await put('20260304c.txt', '20260304ce.txt');
    const before = await version();
    const held = await refresh();
    assert.equal(held.status, 'failed');
    assert.equal(
      held.error,
      'no daily file for 2026-03-03 (a workday) on the source; 2 later file(s) held back until it appears',
    );
    assert.equal(await version(), before);
    // The last success is recent: still live, and it still lists that success's files.
    assert.equal((await get('/v1/status')).json().data.dataset_status, 'live');

    await put('20260303c.txt', '20260303ce.txt');
    const caught = await refresh();
    assert.equal(caught.status, 'succeeded', caught.error ?? '');
    assert.equal(caught.counts.applied, 4);
    assert.deepEqual(
      (await get('/v1/status')).json().data.files_applied.map((f: { file: string }) => f.file),
      ['20260303c.txt', '20260303ce.txt', '20260304c.txt', '20260304ce.txt'],
    );
  });

  it('picks up a newly dropped daily file at the next run: /v1/filings/daily shows its filings', async () => {
    const lines = (await readFile(path.join(generated, '20260305c.txt'))).toString('latin1').split('\n');
    const known = new Set(
      (await t.db.pool.query<{ d: string }>('SELECT document_number AS d FROM registry.entities')).rows.map((r) => r.d),
    );
    const formation = lines
      .filter((l) => l.length >= 1436)
      .map((l) => {
        try {
          return parseCorporate(Buffer.from(l, 'latin1'));
        } catch {
          return null;
        }
      })
      .find((r) => r !== null && r.fileDate !== null && !known.has(r.documentNumber))!;
    assert.ok(formation, 'the day has a new entity');
    const url = `/v1/filings/daily?date=${formation.fileDate}&limit=500`;
    const docs = async (): Promise<string[]> => {
      const res = await get(url, true);
      assert.equal(res.statusCode, 200, res.body);
      return res
        .json()
        .data.filter((h: { filing_type: string }) => h.filing_type === 'FORMATION')
        .map((h: { document_number: string }) => h.document_number);
    };
    assert.ok(!(await docs()).includes(formation.documentNumber));

    await put('20260305c.txt', '20260305ce.txt');
    const run = await refresh();
    assert.equal(run.status, 'succeeded', run.error ?? '');
    assert.equal(run.counts.applied, 2);
    assert.ok((await docs()).includes(formation.documentNumber));
    assert.equal((await get('/v1/status')).json().data.newest_file_date, '2026-03-05');
  });

  it('applies the files before a broken one; the status lists every file applied since the last success', async () => {
    await put('20260306c.txt');
    await writeFile(path.join(drop, '20260306ce.txt'), 'not a registry record\nnor this\n');
    const before = await version();
    const broken = await refresh();
    assert.equal(broken.status, 'failed');
    assert.equal(
      broken.error,
      '20260306ce.txt refused: every one of its 2 lines is malformed ' +
        '(first: line 1, event record is 21 bytes, expected 662)',
    );
    assert.equal(await version(), before + 1, 'the corporate file before it is applied');

    await put('20260306ce.txt');
    const fixed = await refresh();
    assert.equal(fixed.status, 'succeeded', fixed.error ?? '');
    assert.equal(fixed.counts.applied, 1);
    assert.deepEqual(
      (await get('/v1/status')).json().data.files_applied.map((f: { file: string }) => f.file),
      ['20260306c.txt', '20260306ce.txt'],
    );
  });

  it('turns stale 36 h after the last successful refresh, says since when; a failed run changes nothing', async () => {
    const { last_refresh_at: last } = (await get('/v1/status')).json().data;
    t.clock.set(new Date(Date.parse(last) + 36 * 3_600_000 + 60_000));
    const stale = (await get('/v1/status')).json().data;
    assert.deepEqual(
      [stale.dataset_status, stale.stale_since],
      ['stale', new Date(Date.parse(last) + 36 * 3_600_000).toISOString().replace('.000Z', 'Z')],
    );
    assert.equal((await get('/v1/filings/recent?days=1', true)).json().meta.dataset_status, 'stale');

    // The directory gone (an unmounted share): the run fails and the dataset stays stale.
    await rename(drop, `${drop}-away`);
    const failed = await refresh();
    assert.equal(failed.status, 'failed');
    assert.match(failed.error ?? '', /^listing .+ failed after 3 attempts: .+: no such directory$/);
    assert.equal((await get('/v1/status')).json().data.dataset_status, 'stale');

    await rename(`${drop}-away`, drop);
    const back = await refresh();
    assert.equal(back.status, 'succeeded', back.error ?? '');
    assert.deepEqual([back.counts.applied, back.counts.downloaded_bytes], [0, 0]);
    const live = (await get('/v1/status')).json().data;
    assert.deepEqual([live.dataset_status, live.stale_since, live.files_applied], ['live', null, []]);
    assert.equal((await get('/v1/filings/recent?days=1', true)).json().meta.dataset_status, 'live');
  });
});
