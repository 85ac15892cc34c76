// The entities as they were at a dataset version (docs/contract.md, "Cursors"): the live rows no import has
// written since, and the rows imports replaced since, as they were (registry.entity_history, kept a week).
import type pg from 'pg';
import { ENTITY_COLUMNS } from '../registry/import/rows.js';
import type { Source } from './keyset.js';
import type { Sql } from './sql.js';

const COLUMNS = [...ENTITY_COLUMNS, 'changed_in'].join(', ');

/** The dataset's version now, and the oldest one a cursor can still read. */
export interface Versions {
  version: number;
  pinnedFrom: number;
}

export async function datasetVersions(pool: pg.Pool): Promise<Versions> {
  const { rows } = await pool.query<{ version: string; pinned_from: string }>(
    'SELECT version, pinned_from FROM dataset_state',
  );
  return { version: Number(rows[0]!.version), pinnedFrom: Number(rows[0]!.pinned_from) };
}

/**
 * The entities (alias `e`) a list pinned to `version` reads, as sources to read apart (src/search/keyset.ts): the
 * live table while the dataset is still at that version, else its rows no import has written since and the rows
 * imports replaced since, as they were.
 */
export function entitySources(sql: Sql, version: number, now: Versions): Source[] {
  if (version === now.version) return [{ from: 'registry.entities e', where: 'true' }];
  const v = sql.p(version);
  return [
    { from: 'registry.entities e', where: `e.changed_in <= ${v}` },
    { from: 'registry.entity_history e', where: `e.changed_in <= ${v} AND e.superseded_in > ${v}` },
  ];
}

/** The same entities as one relation (alias `e`), for a list of bounded size read whole (a day's filings). */
export function entitiesAt(sql: Sql, version: number, now: Versions): string {
  const sources = entitySources(sql, version, now);
  if (sources.length === 1) return sources[0]!.from;
  const arms = sources.map((s) => `SELECT ${COLUMNS} FROM ${s.from} WHERE ${s.where}`);
  return `(${arms.join(' UNION ALL ')}) e`;
}

/** The events (alias `ev`) a list pinned to `version` reads: those written by then (re-sent ones drop out). */
export function eventsAt(sql: Sql, version: number, now: Versions): string {
  if (version === now.version) return 'registry.events ev';
  return `(SELECT * FROM registry.events WHERE changed_in <= ${sql.p(version)}) ev`;
}
