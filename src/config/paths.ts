// The project's root directory, found from this module's own location so that it is the same
// whether the code runs from `src/` (tsx) or from `dist/` (compiled).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Plain SQL migrations ship in the source tree; the compiled code reads them from there too. */
export const migrationsDir = path.join(projectRoot, 'src', 'db', 'migrations');
export const zipCountyCsv = path.join(projectRoot, 'data', 'fl-zip-county.csv');
