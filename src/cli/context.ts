// What a command needs: the configuration and, for most, the database.
import { loadConfig, type Config } from '../config/index.js';
import { openServiceDatabase } from '../main/database.js';
import type { Database } from '../db/index.js';

/** Runs `work` with the database open, closing it (and an embedded server this process started) after. */
export async function withDatabase<T>(
  work: (db: Database, config: Config) => Promise<T>,
  config = loadConfig(),
  opts: { instance?: boolean } = {},
): Promise<T> {
  const db = await openServiceDatabase(config, { poolSize: 4, ...opts });
  try {
    return await work(db, config);
  } finally {
    await db.close();
  }
}

/** Log lines of a command go to stderr, so stdout stays clean for `--json`. */
export const logLine = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
