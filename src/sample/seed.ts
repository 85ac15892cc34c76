// The demo dataset: on a fresh embedded database, registry files are generated in the registry's own
// format and loaded through the real importer, so every endpoint has something to show. The
// importer's step-by-step lines go to a log file beside the files (and to `detail`), not the console.
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from '../config/index.js';
import { generateDataset } from './index.js';
import { importFiles, type ImportSummary } from '../registry/import/index.js';

/** How the seeding shows itself: a phase per step, progress within it, and the detail lines. */
export interface SeedReport {
  phase(label: string): void;
  progress(done: number, total: number): void;
  detail(line: string): void;
  /** The seeding is over (whether it succeeded or not). */
  finish(): void;
}

export interface SeededSample {
  readonly summary: ImportSummary;
  readonly seconds: number;
  /** Where the sample's files and the importer's detail lines are. */
  readonly dir: string;
  readonly logFile: string;
}

async function hasImports(pool: pg.Pool): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM imports LIMIT 1');
  return (rowCount ?? 0) > 0;
}

/** Generates (once) and imports the sample files when nothing has been imported yet. */
export async function seedSample(pool: pg.Pool, config: Config, report: SeedReport): Promise<SeededSample | null> {
  if (await hasImports(pool)) return null;
  const started = Date.now();
  const dir = path.join(config.dataDir, 'sample');
  const logFile = path.join(dir, 'import.log');
  await mkdir(dir, { recursive: true });
  const file = createWriteStream(logFile, { flags: 'a' });
  const detail = (line: string): void => {
    report.detail(line);
    file.write(`${line}\n`);
  };
  try {
    if (!existsSync(path.join(dir, 'cordata.zip'))) {
      report.phase('generating sample files');
      detail(`generating a sample dataset of ${config.sample.entities} entities in ${dir}`);
      const { entities, seed, days } = config.sample;
      await generateDataset({ entities, outDir: dir, seed, days, onProgress: report.progress });
    }
    report.phase('importing sample files');
    const summary = await importFiles(pool, [dir], { log: detail, onFile: report.progress });
    return { summary, seconds: (Date.now() - started) / 1000, dir, logFile };
  } finally {
    report.finish();
    file.end();
    await finished(file);
  }
}
