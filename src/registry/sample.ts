// The demo dataset: on a fresh embedded database, registry files are generated in the registry's own
// format and loaded through the real importer, so every endpoint has something to show.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from '../config/index.js';
import { generateDataset } from './generator/index.js';
import { importFiles, type ImportSummary } from './import/index.js';
import type { Progress } from './import/progress.js';

async function hasImports(pool: pg.Pool): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM imports LIMIT 1');
  return (rowCount ?? 0) > 0;
}

/** Generates (once) and imports the sample files when nothing has been imported yet. */
export async function seedSample(
  pool: pg.Pool,
  config: Config,
  opts: { log: (line: string) => void; progress?: Progress },
): Promise<ImportSummary | null> {
  if (await hasImports(pool)) return null;
  const dir = path.join(config.dataDir, 'sample');
  if (!existsSync(path.join(dir, 'cordata.zip'))) {
    opts.log(`generating a sample dataset of ${config.sample.entities} entities in ${dir}`);
    await generateDataset({
      entities: config.sample.entities,
      outDir: dir,
      seed: config.sample.seed,
      days: config.sample.days,
    });
  }
  opts.log('importing the sample dataset through the importer');
  return importFiles(pool, [dir], { log: opts.log, ...(opts.progress ? { progress: opts.progress } : {}) });
}
