// What a cursor pinned to an earlier dataset version reads (docs/contract.md, "Cursors"): the rows a daily file
// replaces are kept for a week in registry.entity_history, each marked with the version that replaced it.
import type pg from 'pg';

/** How long replaced rows are kept: a cursor's walk may take that long (a slow client paging 12.6 million rows). */
export const HISTORY_DAYS = 7;

/** The version the file being applied will have (the import bumps it in the same transaction). */
export const NEXT_VERSION = '(SELECT version + 1 FROM dataset_state)';

/**
 * Keeps the rows the change set replaces (`old_entities`, see rememberCorporateDerived), then forgets those
 * replaced more than HISTORY_DAYS ago: cursors pinned before the newest forgotten replacement cannot be read.
 */
export async function keepReplacedRows(client: pg.PoolClient): Promise<void> {
  await client.query(
    `INSERT INTO registry.entity_history SELECT o.*, ${NEXT_VERSION}, clock_timestamp() FROM old_entities o`,
  );
  await client.query(
    `WITH gone AS (
       DELETE FROM registry.entity_history WHERE superseded_at < clock_timestamp() - make_interval(days => $1)
       RETURNING superseded_in)
     UPDATE dataset_state SET pinned_from = greatest(pinned_from, (SELECT max(superseded_in) FROM gone))
     WHERE EXISTS (SELECT 1 FROM gone)`,
    [HISTORY_DAYS],
  );
}

/** A full load replaced every row of its tables: no earlier version can be read any more. After the version moved. */
export async function forgetHistory(client: pg.PoolClient): Promise<void> {
  await client.query('DELETE FROM registry.entity_history');
  await client.query('UPDATE dataset_state SET pinned_from = version');
}
