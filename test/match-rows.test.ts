// The match rows beside a generated dataset (docs/bulk-files.md, "Match rows"): deterministic, each kind
// present, every truth an entity of the dataset named as its kind says, and the registry files untouched.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CORPORATE_RECORD_BYTES, corporate, type Field } from '../src/registry/layout.js';
import { generateDataset } from '../src/sample/index.js';
import { MATCH_COLUMNS, MATCH_KINDS, MATCH_ROWS_FILE, type MatchRow } from '../src/sample/match-rows.js';
import { TWO_TYPO_MIN_LENGTH, TYPO_MIN_LENGTH } from '../src/sample/match-variants.js';
import { NO_TYPO_MAX_LENGTH, ONE_TYPO_MAX_LENGTH } from '../src/search/thresholds.js';
import { readZip, splitLines } from './support/zip.js';

const ENTITIES = 3000;
const ROWS = 660;
let root: string;
const dirOf = (name: string): string => path.join(root, name);
const generate = (name: string, matchRows?: number) =>
  generateDataset({ entities: ENTITIES, seed: 5, days: 2, endDate: '2024-03-15', outDir: dirOf(name), matchRows });

async function rowsOf(name: string): Promise<MatchRow[]> {
  return parse(await readFile(path.join(dirOf(name), MATCH_ROWS_FILE)), { columns: true }) as MatchRow[];
}

const text = (rec: Buffer, f: Field): string =>
  rec
    .subarray(f.start, f.start + f.len)
    .toString('utf8')
    .trimEnd();

/** Each entity of the dataset as the import leaves it: the snapshot, then the daily files in order (newest wins). */
async function registered(dir: string): Promise<Map<string, { name: string; city: string; zip: string }>> {
  const lines: Buffer[] = [];
  for (const data of (await readZip(path.join(dir, 'cordata.zip'))).values()) lines.push(...splitLines(data, true));
  for (const file of (await readdir(dir)).filter((f) => /^\d{8}c\.txt$/.test(f)).sort())
    lines.push(...splitLines(await readFile(path.join(dir, file)), false));
  const out = new Map<string, { name: string; city: string; zip: string }>();
  for (const l of lines.filter((x) => x.length === CORPORATE_RECORD_BYTES)) {
    const zip = text(l, corporate.principal.zip).slice(0, 5);
    out.set(text(l, corporate.documentNumber), {
      name: text(l, corporate.name),
      city: text(l, corporate.principal.city),
      zip,
    });
  }
  return out;
}

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rl-match-rows-'));
  await Promise.all([generate('a', ROWS), generate('b', ROWS), generate('short', 110), generate('none')]);
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('match rows', () => {
  it('are the same bytes for the same options, fewer rows the first rows, registry files untouched', async () => {
    const [a, b] = await Promise.all([
      readFile(path.join(dirOf('a'), MATCH_ROWS_FILE)),
      readFile(path.join(dirOf('b'), MATCH_ROWS_FILE)),
    ]);
    assert.ok(a.equals(b), 'match rows differ between runs');
    assert.deepEqual(await rowsOf('short'), (await rowsOf('a')).slice(0, 110));
    const files = (await readdir(dirOf('none'))).sort();
    assert.ok(!files.includes(MATCH_ROWS_FILE), 'no match rows unless asked');
    assert.deepEqual((await readdir(dirOf('a'))).sort(), [...files, MATCH_ROWS_FILE].sort());
    for (const f of files) {
      const [x, y] = await Promise.all([readFile(path.join(dirOf('a'), f)), readFile(path.join(dirOf('none'), f))]);
      assert.ok(x.equals(y), `${f} changed by the match rows`);
    }
  });

  it('hold every kind in its share, under the header the docs describe', async () => {
    const header = (await readFile(path.join(dirOf('a'), MATCH_ROWS_FILE), 'utf8')).split('\r\n')[0];
    assert.equal(header, MATCH_COLUMNS.join(','));
    const rows = await rowsOf('a');
    assert.equal(rows.length, ROWS);
    for (const kind of MATCH_KINDS)
      assert.equal(rows.filter((r) => r.kind === kind).length, ROWS / MATCH_KINDS.length, kind);
    assert.deepEqual(
      rows.map((r) => r.reference),
      rows.map((_, k) => `row-${k + 1}`),
    );
  });

  it('name entities of the dataset as their kind says; negatives name none', async () => {
    const entities = await registered(dirOf('a'));
    for (const r of await rowsOf('a')) {
      if (r.kind === 'negative') {
        assert.equal(r.truth, '');
        continue;
      }
      const e = entities.get(r.truth);
      assert.ok(e, `${r.reference}: ${r.truth} is not an entity of the dataset`);
      const sameName = ['exact', 'city', 'zip', 'officer'].includes(r.kind);
      assert.equal(r.name === e.name, sameName, `${r.reference} (${r.kind}): ${r.name} against ${e.name}`);
      if (r.kind === 'officer') assert.match(r.officer, /^\S+ \S+/);
      else assert.equal(r.officer, '');
      if (r.kind === 'city') assert.notEqual(r.city, e.city);
      else if (r.kind !== 'officer') assert.equal(r.city, e.city);
      if (r.kind === 'zip') {
        const differ = [...r.zip].filter((d, k) => d !== e.zip[k]).length;
        assert.equal(differ, 1, `${r.reference}: ${r.zip} against ${e.zip}`);
      } else if (r.kind !== 'officer') assert.equal(r.zip, e.zip);
    }
  });

  it('mistype only words the search lets carry a typo', () => {
    assert.equal(TYPO_MIN_LENGTH, NO_TYPO_MAX_LENGTH + 1);
    assert.equal(TWO_TYPO_MIN_LENGTH, ONE_TYPO_MAX_LENGTH + 1);
  });
});
