// A generated registry for the change feed's tests: loaded through the importer but for its last day's files,
// which the test imports when it wants new changes to arrive; an Enterprise workspace whose per-minute limit
// refuses nothing; and the feed read whole, page by page.
import assert from 'node:assert/strict';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setPerMinute } from '../../src/accounts/workspaces.js';
import { importRegistry } from '../../src/main/importer.js';
import type { ChangeRow } from '../../src/registry/feed/read.js';
import { generateDataset } from '../../src/sample/index.js';
import type { TestApp } from './app.js';

export interface ChangedRegistry {
  /** The generated files' directory (the caller removes it). */
  readonly dir: string;
  /** The last day's files, not imported yet. */
  readonly held: readonly string[];
  readonly key: string;
  readonly workspace: string;
}

export async function changedRegistry(t: TestApp, entities: number, seed: number): Promise<ChangedRegistry> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-changes-'));
  await generateDataset({ entities, seed, days: 6, endDate: '2026-11-20', outDir: dir, workers: 0 });
  const names = (await readdir(dir)).sort();
  const held = names.filter((n) => /^20261120c?e?\.txt$/.test(n)).map((n) => path.join(dir, n));
  assert.equal(held.length, 2, 'the last day has a corporate and an events file');
  await importRegistry(
    t.db.pool,
    names.map((n) => path.join(dir, n)).filter((f) => !held.includes(f)),
  );
  const w = await t.workspace('enterprise');
  await setPerMinute(t.db.pool, w.workspace.id, 1_000_000);
  return { dir, held, key: w.key.key, workspace: w.workspace.id };
}

/** The feed's newest change number. */
export const newestChange = async (t: TestApp): Promise<number> =>
  Number((await t.db.pool.query('SELECT last_sequence FROM registry.change_state')).rows[0].last_sequence);

/** Every change `query` matches, in one read (the feed here is smaller than a page). */
export async function readFeed(t: TestApp, key: string, query = ''): Promise<ChangeRow[]> {
  const res = await t.get(`/v1/changes?limit=1000${query ? `&${query}` : ''}`, key);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { data: ChangeRow[]; pagination: { has_more: boolean } };
  assert.equal(body.pagination.has_more, false, 'the feed fits one page');
  return body.data;
}
