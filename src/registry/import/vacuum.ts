// The vacuum after an import, which lets searches read the derived tables index-only.
import type pg from 'pg';

/**
 * The tables whose covering indexes searches read index-only (the postings' rank index, the entities'
 * status and type date indexes, the officers' name index), vacuumed after a snapshot and after daily
 * files. A full load's own vacuum of the postings marks no page all-visible while a statement older
 * than their rows still runs, as the other connection's index build may be; run once the load is in,
 * it does (a second when they are marked already; the copied tables were frozen by their COPY). A page
 * a file changed is not all-visible, and an index-only scan reads the table there; autovacuum waits
 * for a fifth of a table to change, which a quarter of daily files never reaches. A vacuum marks such
 * a page again only once its dead rows are gone from the indexes, a pass it skips while they are on
 * under 2% of the pages: the postings, with one index (4.4 s at 12.6 million entities), always take
 * it. S of type DOMNP passed 11,316 postings on such pages after ten daily files, none after the pass.
 */
const INDEX_ONLY_TABLES = [
  { table: 'entity_postings', options: '(INDEX_CLEANUP ON)', untilAllVisible: true },
  { table: 'entities', options: '', untilAllVisible: false },
  { table: 'officers', options: '', untilAllVisible: false },
] as const;

/** Passes over the postings while a snapshot older than their rows (a reader's statement, an auto-analyze) leaves
 *  pages unmarked; each pass skips the pages marked already, so a repeat costs only what the last one missed. */
const ALL_VISIBLE_PASSES = 3;
/** Pause before another pass: longer than a search statement, which is what usually holds the older snapshot. */
const ALL_VISIBLE_RETRY_MS = 1000;

/** Vacuums INDEX_ONLY_TABLES after a snapshot or daily files; like the prewarm, a failure is logged, not thrown. */
export async function vacuumDataset(pool: pg.Pool, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  try {
    for (const { table, options, untilAllVisible } of INDEX_ONLY_TABLES) {
      for (let pass = 1; ; pass++) {
        await pool.query(`VACUUM ${options} registry.${table}`);
        if (!untilAllVisible || pass === ALL_VISIBLE_PASSES || (await allVisible(pool, table))) break;
        await new Promise((resolve) => setTimeout(resolve, ALL_VISIBLE_RETRY_MS));
      }
    }
    log(
      `dataset: vacuumed ${INDEX_ONLY_TABLES.map((t) => t.table).join(', ')} ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (err) {
    log(`dataset: vacuum failed (${err instanceof Error ? err.message : String(err)}); the files stand`);
  }
}

async function allVisible(pool: pg.Pool, table: string): Promise<boolean> {
  const { rows } = await pool.query<{ all: boolean }>(
    `SELECT relallvisible >= relpages AS all FROM pg_class WHERE oid = $1::regclass`,
    [`registry.${table}`],
  );
  return rows[0]?.all ?? true;
}
