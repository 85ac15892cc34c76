// Bulk snapshots (docs/contract.md, "Bulk snapshots"): after an import the workers write the whole dataset as the
// change feed's records, in JSON lines and Parquet: the rows are the dataset's, the manifest's counts and checksums
// are the files', the Parquet file reads back as the JSON lines; a snapshot with the feed applied after its
// last_sequence is the next import's snapshot. One snapshot per dataset version, taken up again after a worker dies;
// a plan without them is refused free; a link works only as signed and until it expires.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { parquetReadObjects } from 'hyparquet';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { importRegistry } from '../src/main/importer.js';
import { startSnapshots } from '../src/main/snapshots.js';
import { openRecords, RECORD_TABLES } from '../src/registry/feed/records.js';
import { beginSnapshot } from '../src/snapshots/store.js';
import { snapshotDir } from '../src/snapshots/runner.js';
import { testApp, type TestApp } from './support/app.js';
import { changedRegistry, readFeed, type ChangedRegistry } from './support/changes.js';
import { Contract } from './support/contract.js';

type Json = Record<string, any>;

let t: TestApp;
let r: ChangedRegistry;
let contract: Contract;

before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z' });
  r = await changedRegistry(t, 3000, 91);
  contract = new Contract((await t.get('/v1/openapi.json')).json());
});
after(async () => {
  await t.close();
  await rm(r.dir, { recursive: true, force: true });
});

const completed = async (): Promise<Json[]> =>
  (await t.db.pool.query("SELECT id, dataset_version FROM snapshots WHERE status = 'completed'")).rows;

/** Runs a snapshot worker until the dataset's version has its completed snapshot; then stops it. */
async function snapshotNow(): Promise<void> {
  const worker = startSnapshots(t.db.pool, t.config, t.clock, () => {})!;
  try {
    for (let i = 0; i < 600; i++) {
      const { rows } = await t.db.pool.query(
        `SELECT 1 FROM snapshots s, dataset_state d WHERE s.dataset_version = d.version AND s.status = 'completed'`,
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('no snapshot was written');
  } finally {
    await worker.stop();
  }
}

async function manifest(id = 'latest', key = r.key): Promise<Json> {
  const res = await t.get(`/v1/snapshots/${id}`, key);
  contract.check(`/v1/snapshots/${id}`, res);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

/** A file of the manifest by its link, checked against the manifest's size and checksum. */
async function download(file: Json): Promise<Buffer> {
  const res = await t.get(new URL(file.download.url).pathname + new URL(file.download.url).search);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.rawPayload;
  assert.equal(body.length, file.bytes, file.name);
  assert.equal(createHash('sha256').update(body).digest('hex'), file.sha256, file.name);
  assert.equal(res.headers.etag, `"${file.sha256}"`);
  return body;
}

const lines = (gz: Buffer): Json[] =>
  gunzipSync(gz)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** Each table's records as its JSON lines file holds them, by table. */
async function records(m: Json): Promise<Record<string, Json[]>> {
  const out: Record<string, Json[]> = {};
  for (const f of m.files.filter((x: Json) => x.format === 'jsonl')) out[f.table] = lines(await download(f));
  return out;
}

/** A list field's none: the feed names no empty list (null), the registry stores [] (docs/contract.md). */
const normal = (rows: Json[]): Json[] =>
  rows.map((x) => ({
    ...x,
    ...('officers' in x ? { officers: x.officers ?? [], annual_reports: x.annual_reports ?? [] } : {}),
  }));

describe('a snapshot after an import', () => {
  let first: Json;

  before(async () => {
    await snapshotNow();
    first = await manifest();
  });

  it('holds every record of the dataset, as a direct read gives them, at its version and feed position', async () => {
    const state = (await t.db.pool.query('SELECT version FROM dataset_state')).rows[0];
    const newest = (await t.db.pool.query('SELECT last_sequence FROM registry.change_state')).rows[0];
    assert.equal(first.dataset_version, Number(state.version));
    assert.equal(first.last_sequence, Number(newest.last_sequence));
    assert.ok(first.last_sequence > 0, 'the daily files before made changes');
    assert.deepEqual(
      first.files.map((f: Json) => f.name),
      ['entities.jsonl.gz', 'entities.parquet', 'filings.jsonl.gz', 'filings.parquet'],
    );
    const got = await records(first);
    for (const table of ['entities', 'filings'] as const) {
      const direct = JSON.parse(JSON.stringify((await t.db.pool.query(RECORD_TABLES[table].query)).rows));
      assert.ok(direct.length > 1000, table);
      assert.equal(got[table]!.length, direct.length, table);
      assert.deepEqual(got[table], direct, table);
      for (const f of first.files.filter((x: Json) => x.table === table)) assert.equal(f.rows, direct.length);
    }
    const entities = (await t.db.pool.query('SELECT count(*)::int AS n FROM registry.entities')).rows[0].n;
    assert.equal(got.entities!.length, entities);
  });

  it('has Parquet files that read back as the JSON lines', async () => {
    const got = await records(first);
    for (const f of first.files.filter((x: Json) => x.format === 'parquet')) {
      const bytes = await download(f);
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      const rows = await parquetReadObjects({ file });
      assert.deepEqual(JSON.parse(JSON.stringify(rows)), got[f.table], f.name);
    }
  });

  it('with the feed applied after its last_sequence, is the snapshot of the next import', async () => {
    const before = await records(first);
    await importRegistry(t.db.pool, r.held);
    await snapshotNow();
    const next = await manifest();
    assert.ok(next.dataset_version > first.dataset_version);
    assert.notEqual(next.id, first.id);
    const changes = await readFeed(t, r.key, `after_sequence=${first.last_sequence}`);
    assert.ok(changes.length > 0, 'the held day made changes');
    assert.equal(changes.at(-1)!.sequence, next.last_sequence);
    const entities = new Map(before.entities!.map((e) => [e.document_number, e]));
    const filings = new Map(before.filings!.map((f) => [`${f.document_number}/${f.sequence}`, f]));
    const fields = RECORD_TABLES.entities.columns.map((c) => c.name);
    for (const c of changes) {
      const set = Object.fromEntries(c.changes.map((x) => [x.field, x.after]));
      if (c.kind === 'created')
        entities.set(c.document_number, {
          ...Object.fromEntries(fields.map((f) => [f, null])),
          ...set,
          document_number: c.document_number,
        });
      else if (c.kind === 'removed') entities.delete(c.document_number);
      else if (c.kind === 'filing') {
        const { before: was, after: now } = c.changes[0]! as { before: Json | null; after: Json | null };
        const sequence = (now ?? was)!.sequence;
        if (now) filings.set(`${c.document_number}/${sequence}`, { document_number: c.document_number, ...now });
        else filings.delete(`${c.document_number}/${sequence}`);
      } else Object.assign(entities.get(c.document_number)!, set);
    }
    const after = await records(next);
    const byKey = (a: Json, b: Json) =>
      a.document_number < b.document_number ? -1 : a.document_number > b.document_number ? 1 : a.sequence - b.sequence;
    const reorder = (row: Json, like: Json) => Object.fromEntries(Object.keys(like).map((k) => [k, row[k]]));
    const mirror = normal([...entities.values()].sort(byKey).map((e) => reorder(e, after.entities![0]!)));
    assert.deepEqual(mirror, normal(after.entities!));
    const mirrored = [...filings.values()].sort(byKey).map((f) => reorder(f, after.filings![0]!));
    assert.deepEqual(mirrored, after.filings);
  });

  it('lists the snapshots newest first, with their manifests, for a credit each call', async () => {
    const before = await ledgerCheck(t.db.pool, r.workspace);
    const res = await t.get('/v1/snapshots', r.key);
    contract.check('/v1/snapshots', res);
    assert.equal(res.statusCode, 200, res.body);
    const list = res.json().data as Json[];
    assert.equal(list.length, 2);
    assert.ok(list[0]!.dataset_version > list[1]!.dataset_version);
    assert.equal(list[1]!.id, first.id);
    await download(list[1]!.files[3]);
    const spent = before.balance - (await ledgerCheck(t.db.pool, r.workspace)).balance;
    assert.equal(spent, 1);
  });
});

describe('one snapshot per dataset version', () => {
  it('a worker finds the version done and writes nothing again', async () => {
    const done = await completed();
    const dir = snapshotDir(t.config);
    const before = await Promise.all(done.map((s) => stat(path.join(dir, s.id, 'entities.parquet'))));
    const worker = startSnapshots(t.db.pool, t.config, t.clock, () => {})!;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await worker.stop();
    assert.deepEqual(await completed(), done);
    const later = await Promise.all(done.map((s) => stat(path.join(dir, s.id, 'entities.parquet'))));
    assert.deepEqual(
      later.map((s) => s.mtimeMs),
      before.map((s) => s.mtimeMs),
    );
  });

  it('a version begun by a worker that died is taken up again under its id, its partial files replaced', async () => {
    await t.db.pool.query('UPDATE dataset_state SET version = version + 1, last_import_at = now()');
    const read = (await openRecords(t.db.pool))!;
    const begun = (await beginSnapshot(t.db.pool, read.at, t.clock.now()))!;
    await read.close();
    const partial = path.join(snapshotDir(t.config), `${begun.id}.partial`);
    await mkdir(partial, { recursive: true });
    await writeFile(path.join(partial, 'entities.parquet'), 'cut short');
    await snapshotNow();
    const m = await manifest();
    assert.equal(m.id, begun.id);
    await download(m.files[1]);
    const kept = await readdir(snapshotDir(t.config));
    assert.deepEqual(kept.sort(), (await completed()).map((s) => s.id).sort(), 'no partial directory is left');
  });
});

describe('refusals', () => {
  it('runs no worker on a process told SNAPSHOTS=0, nor on one without a background slot', () => {
    for (const off of [
      { ...t.config, snapshots: false },
      { ...t.config, matchJobSlots: 0 },
    ])
      assert.equal(
        startSnapshots(t.db.pool, off, t.clock, () => {}),
        null,
      );
  });

  it('a plan without snapshots gets the 403 envelope, and no credit moves', async () => {
    const w = await t.workspace('growth');
    const before = await ledgerCheck(t.db.pool, w.workspace.id);
    const entries = () =>
      t.db.pool.query('SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1', [w.workspace.id]);
    const { rows: granted } = await entries();
    for (const url of ['/v1/snapshots', '/v1/snapshots/latest']) {
      const res = await t.get(url, w.key.key);
      contract.check(url, res);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error.code, 'forbidden');
      assert.match(res.json().error.message, /Lead Feed and Enterprise/);
    }
    assert.deepEqual(await ledgerCheck(t.db.pool, w.workspace.id), before);
    assert.deepEqual((await entries()).rows, granted, 'no charge, so no refund either');
  });

  it('a bad id is a 400 naming it, free; an unknown one a 404', async () => {
    const before = await ledgerCheck(t.db.pool, r.workspace);
    const bad = await t.get('/v1/snapshots/newest', r.key);
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.json().error.details.id);
    assert.deepEqual(await ledgerCheck(t.db.pool, r.workspace), before);
    const missing = await t.get(`/v1/snapshots/sn_${'0'.repeat(24)}`, r.key);
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'not_found');
  });

  it('a link works only as signed, for its file, and until it expires', async () => {
    const m = await manifest();
    const url = new URL(m.files[0].download.url);
    const at = (u: URL) => t.get(u.pathname + u.search);
    const other = new URL(url);
    other.pathname = other.pathname.replace('entities.jsonl.gz', 'filings.jsonl.gz');
    const forged = new URL(url);
    forged.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    for (const u of [other, forged]) {
      const res = await at(u);
      assert.equal(res.statusCode, 403, u.href);
      assert.equal(res.json().error.code, 'forbidden');
    }
    const unknown = new URL(url);
    unknown.pathname = unknown.pathname.replace('entities.jsonl.gz', 'secrets.txt');
    const res = await at(unknown);
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().error.details.name);
    assert.equal((await at(url)).statusCode, 200);
    t.clock.advance(25 * 3600 * 1000);
    const expired = await at(url);
    assert.equal(expired.statusCode, 403);
    assert.match(expired.json().error.message, /expired/);
  });
});
