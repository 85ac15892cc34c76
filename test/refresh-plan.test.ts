// The refresh's parts on their own: the source setting, what a run would fetch (missing days
// included), when a file's malformed lines refuse it, resumed and verified downloads, and the
// scheduler's retry of a failed run.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config/index.js';
import { parseRegistrySource, REGISTRY_SFTP_ROOT } from '../src/config/registry-source.js';
import type { Job } from '../src/jobs/job.js';
import { startScheduler } from '../src/jobs/scheduler.js';
import type { ReadStats } from '../src/registry/import/read.js';
import { fetchFile, partName } from '../src/registry/refresh/fetch.js';
import { refreshRetryDelayMs } from '../src/registry/refresh/job.js';
import { LocalSource } from '../src/registry/refresh/local-source.js';
import { appliedKey, planDaily, planSnapshots, type AppliedState } from '../src/registry/refresh/plan.js';
import { tooManyRejects } from '../src/registry/refresh/refuse.js';
import { classify, type ListedFile, type RegistrySource } from '../src/registry/refresh/source.js';
import { testDatabase, type TestDatabase } from './support/database.js';

describe('REGISTRY_SOURCE', () => {
  it('takes a directory or an sftp URL, and says what is wrong with a bad one', () => {
    assert.deepEqual(parseRegistrySource('', '', ''), null);
    assert.deepEqual(parseRegistrySource('  ./drop ', '', ''), { kind: 'local', dir: path.resolve('drop') });
    assert.deepEqual(parseRegistrySource('sftp://Public:p%40ss!word@sftp.example.gov', '', ''), {
      kind: 'sftp',
      host: 'sftp.example.gov',
      port: 22,
      username: 'Public',
      password: 'p@ss!word',
      root: REGISTRY_SFTP_ROOT,
      keyFile: undefined,
      hostKeyFingerprint: undefined,
    });
    const withKey = parseRegistrySource(
      'sftp://me@127.0.0.1:2222/srv/Public/doc/',
      '/k/id',
      `SHA256:${'A'.repeat(43)}`,
    );
    assert.equal(
      withKey?.kind === 'sftp' && `${withKey.port} ${withKey.root} ${withKey.keyFile} ${withKey.password === ''}`,
      '2222 /srv/Public/doc /k/id true',
    );
    assert.throws(() => parseRegistrySource('ftp://u:p@host/x', '', ''), /ftp:\/\/ is not supported/);
    assert.throws(() => parseRegistrySource('sftp://host/x', '', ''), /no user/);
    assert.throws(
      () => parseRegistrySource('sftp://u@host/x', '', ''),
      /no password and REGISTRY_SFTP_KEY_FILE is not set/,
    );
    assert.throws(() => parseRegistrySource('sftp://u:p@host', '', 'MD5:aa'), /REGISTRY_SFTP_HOST_KEY/);
    assert.throws(() => loadConfig({ REGISTRY_SOURCE: 'sftp://host' }), /invalid configuration: REGISTRY_SOURCE/);
  });
});

const at = (iso: string): Date => new Date(`${iso}T06:00:00Z`);

function listed(name: string, size = 100): ListedFile {
  const c = classify(name);
  assert.ok(c, name);
  return { name, path: `/Public/doc/${name}`, ...c, size, modifiedAt: at(c.fileDate ?? '2026-01-01') };
}

/** A day's pair of files, `20260105` → 20260105c.txt and 20260105ce.txt. */
const day = (ymd: string): ListedFile[] => [listed(`${ymd}c.txt`), listed(`${ymd}ce.txt`)];

const state = (opts: Partial<Omit<AppliedState, 'applied'>> & { applied?: ListedFile[] } = {}): AppliedState => ({
  applied: new Set((opts.applied ?? []).map((f) => appliedKey(f.name, f.size))),
  snapshotDate: opts.snapshotDate ?? null,
  newestDailyDate: opts.newestDailyDate ?? null,
});

const names = (files: readonly ListedFile[]): string[] => files.map((f) => f.name);

describe('refresh plan', () => {
  it('loads a new snapshot first, and takes daily files after the snapshot that are not applied, in order', () => {
    const zips = [listed('corevent.zip', 500), listed('cordata.zip', 900)];
    const files = [...zips, ...day('20260107'), ...day('20260105'), ...day('20260106'), ...day('20260102')];
    assert.deepEqual(names(planSnapshots(files, state())), ['cordata.zip', 'corevent.zip']);
    assert.deepEqual(names(planSnapshots(files, state({ applied: zips }))), []);
    // Same name, another size: the next quarter's snapshot.
    assert.deepEqual(names(planSnapshots([listed('cordata.zip', 901)], state({ applied: zips }))), ['cordata.zip']);

    const plan = planDaily(
      files,
      state({ snapshotDate: '2026-01-04', newestDailyDate: '2026-01-05', applied: day('20260105') }),
    );
    assert.deepEqual(names(plan.fetch), ['20260106c.txt', '20260106ce.txt', '20260107c.txt', '20260107ce.txt']);
    assert.deepEqual(
      [plan.alreadyApplied, plan.olderThanSnapshot, plan.missingDay, plan.heldBack.length],
      [2, 2, null, 0],
    );
  });

  it('holds back all after a missing workday until it appears; gives it up once two later workdays are there', () => {
    const base = state({ snapshotDate: '2026-01-02', newestDailyDate: '2026-01-05' });
    // Monday 5th applied; Tuesday 6th missing; Wednesday 7th there.
    const one = planDaily([...day('20260105'), ...day('20260107'), listed('20260106ce.txt')], base);
    assert.equal(one.missingDay, '2026-01-06');
    assert.deepEqual(names(one.fetch), ['20260105c.txt', '20260105ce.txt']);
    assert.deepEqual(
      one.heldBack.map((h) => [h.file.name, h.reason]),
      [
        ['20260106ce.txt', 'the daily file of 2026-01-06 (a workday) is not on the source yet'],
        ['20260107c.txt', 'the daily file of 2026-01-06 (a workday) is not on the source yet'],
        ['20260107ce.txt', 'the daily file of 2026-01-06 (a workday) is not on the source yet'],
      ],
    );
    // Thursday's file too: Tuesday was evidently not published.
    const two = planDaily([...day('20260107'), ...day('20260108')], base);
    assert.deepEqual([two.missingDay, two.skippedDays], [null, ['2026-01-06']]);
    assert.deepEqual(names(two.fetch), ['20260107c.txt', '20260107ce.txt', '20260108c.txt', '20260108ce.txt']);
    // A weekend is no gap; a late file for a day given up is still applied.
    const weekend = planDaily(
      [...day('20260112'), ...day('20260106')],
      state({ snapshotDate: '2026-01-02', newestDailyDate: '2026-01-09' }),
    );
    assert.deepEqual(
      [weekend.missingDay, weekend.skippedDays, names(weekend.fetch)],
      [null, [], ['20260106c.txt', '20260106ce.txt', '20260112c.txt', '20260112ce.txt']],
    );
    // Nothing held yet (no snapshot, nothing applied): no gap before the first file.
    assert.equal(planDaily([...day('20260107')], state()).missingDay, null);
  });
});

const stats = (read: number, rejected: number): ReadStats => ({
  read,
  rejected,
  rejects: rejected ? [{ file: 'f', line: 3, reason: 'truncated line: 900 bytes' }] : [],
});

describe('refusing a file', () => {
  it('tolerates a few malformed lines, refuses many or all', () => {
    assert.equal(tooManyRejects(stats(40, 4)), null);
    assert.equal(tooManyRejects(stats(0, 0)), null);
    assert.equal(tooManyRejects(stats(5000, 50)), null);
    assert.equal(
      tooManyRejects(stats(3, 3)),
      'every one of its 3 lines is malformed (first: line 3, truncated line: 900 bytes)',
    );
    assert.match(
      tooManyRejects(stats(40, 11)) ?? '',
      /^11 of its 40 lines are malformed, more than 10 and more than 1%/,
    );
    assert.match(tooManyRejects(stats(5000, 51)) ?? '', /^51 of its 5000 lines/);
  });
});

describe('downloads', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rl-fetch-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const quiet = { attempts: 3, retryDelayMs: 5, log: () => {} };

  it('resumes an interrupted download and keeps the file only at the listed size', async () => {
    const src = path.join(dir, 'src');
    await mkdir(path.join(src, 'cor'), { recursive: true });
    await mkdir(path.join(dir, 'dl'));
    const content = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i % 50 === 49 ? '\n' : 'x')).join(''));
    await writeFile(path.join(src, 'cor', '20260105c.txt'), content);
    const source = new LocalSource(src);
    const [file] = await source.list();
    assert.equal(file?.path, path.join(src, 'cor', '20260105c.txt'));
    await writeFile(path.join(dir, 'dl', partName(file!)), content.subarray(0, 1234));
    const got = await fetchFile(source, file!, path.join(dir, 'dl'), quiet);
    assert.deepEqual([got.resumedFrom, got.downloaded, got.attempts], [1234, 5000 - 1234, 1]);
    assert.ok((await readFile(got.path)).equals(content));

    // The source now holds something else than it listed: no file is kept.
    await writeFile(path.join(src, 'cor', '20260105c.txt'), content.subarray(0, 4000));
    await assert.rejects(
      fetchFile(source, file!, path.join(dir, 'dl'), quiet),
      /download failed after 3 attempt\(s\): 4000 bytes received, the source lists 5000/,
    );
  });

  it('retries a broken transfer with a growing wait, resuming where it broke', async () => {
    const content = Buffer.alloc(3000, 0x41);
    const file: ListedFile = { ...listed('20260106c.txt', content.length), modifiedAt: at('2026-01-06') };
    const waits: number[] = [];
    let calls = 0;
    const flaky: RegistrySource = {
      description: 'flaky',
      list: async () => [file],
      async download(_f, dest, offset) {
        calls++;
        // Each of the first two attempts delivers 1000 bytes, then the connection breaks.
        await appendFile(dest, content.subarray(offset, calls <= 2 ? offset + 1000 : content.length));
        if (calls <= 2) throw new Error('connection reset');
      },
      stat: async () => ({ size: file.size, modifiedAt: file.modifiedAt }),
      details: () => ({}),
      close: async () => {},
    };
    const got = await fetchFile(flaky, file, dir, { ...quiet, sleep: async (ms) => void waits.push(ms) });
    assert.deepEqual([got.attempts, waits], [3, [5, 10]]);
    assert.equal(
      createHash('sha256')
        .update(await readFile(got.path))
        .digest('hex'),
      createHash('sha256').update(content).digest('hex'),
    );
  });
});

describe('retrying a failed job', () => {
  let db: TestDatabase;
  before(async () => {
    db = await testDatabase();
  });
  after(() => db.close());

  it('the scheduler runs a failed job again after its retry delay, until it succeeds', async () => {
    let runs = 0;
    const delays: number[] = [];
    const job: Job = {
      name: 'flaky_test_job',
      schedule: '0 0 1 1 *',
      description: 'fails twice',
      atStartup: true,
      retryDelayMs: (n) => {
        delays.push(n);
        return 10;
      },
      async run() {
        if (++runs <= 2) throw new Error(`failure ${runs}`);
        return { runs };
      },
    };
    const clock = new ManualClock('2026-03-10T05:00:00Z');
    const config = loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
    const scheduler = startScheduler(
      [job],
      (asOf) => ({ pool: db.pool, config, clock, asOf, log: () => {} }),
      clock,
      () => {},
    );
    for (let i = 0; i < 200 && runs < 3; i++) await new Promise((r) => setTimeout(r, 10));
    await scheduler.stop();
    const { rows } = await db.pool.query<{ trigger: string; status: string; error: string | null }>(
      `SELECT trigger, status, error FROM job_runs WHERE job = $1 ORDER BY id`,
      [job.name],
    );
    assert.deepEqual(rows, [
      { trigger: 'startup', status: 'failed', error: 'failure 1' },
      { trigger: 'retry', status: 'failed', error: 'failure 2' },
      { trigger: 'retry', status: 'succeeded', error: null },
    ]);
    assert.deepEqual(delays, [1, 2]);
    assert.deepEqual(
      [1, 2, 3, 5, 9].map((n) => refreshRetryDelayMs(n) / 60_000),
      [15, 30, 60, 240, 240],
    );
  });
});
