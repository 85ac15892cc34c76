// A generated registry imported into a test app's database, with an Enterprise workspace whose per-minute limit
// refuses nothing (a walk of every page reads hundreds), and the city with the most entities.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setPerMinute } from '../../src/accounts/workspaces.js';
import { importFiles } from '../../src/registry/import/index.js';
import { generateDataset } from '../../src/sample/index.js';
import type { TestApp } from './app.js';

export interface Generated {
  /** The generated files' directory (the caller removes it). */
  readonly dir: string;
  readonly key: string;
  readonly workspace: string;
  readonly city: string;
}

export async function generatedRegistry(t: TestApp, entities: number, seed: number): Promise<Generated> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-generated-'));
  const generated = await generateDataset({ entities, seed, days: 3, endDate: '2026-11-20', outDir: dir, workers: 0 });
  await importFiles(
    t.db.pool,
    generated.files.map((f) => path.join(dir, f.name)),
  );
  const w = await t.workspace('enterprise');
  await setPerMinute(t.db.pool, w.workspace.id, 1_000_000);
  const { rows } = await t.db.pool.query<{ city: string }>(
    `SELECT upper(principal_city) AS city FROM registry.entities WHERE principal_city IS NOT NULL
     GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
  );
  return { dir, key: w.key.key, workspace: w.workspace.id, city: rows[0]!.city };
}
