// A sorted entity listing read on from a row (a cursor's page, docs/contract.md "Cursors"): the rows after it in
// the sort's order, as they were at the version the walk is pinned to.
import type pg from 'pg';
import type { SearchContext } from '../context.js';
import { keyColumns, keysetRows, rowKeys, type KeyColumn, type Keys, type RowsAfter } from '../keyset.js';
import { entitySources, type Versions } from '../pinned.js';
import type { EntityHit } from '../shapes.js';
import { entityHitColumns } from './hits.js';
import type { EntitySearch } from './query.js';
import { entityStrategy, sortedWay, type SortKey } from './strategy.js';

const DOCUMENT: KeyColumn = { expr: 'e.document_number', desc: false, type: 'text' };

/** Each sort's keys, in the order of the sorted page's ORDER BY (sorted.ts). */
const SORT_KEYS: Record<SortKey, readonly KeyColumn[]> = {
  name_asc: [{ expr: 'e.name_norm', desc: false, type: 'text' }, DOCUMENT],
  name_desc: [{ expr: 'e.name_norm', desc: true, type: 'text' }, DOCUMENT],
  date_newest: [{ expr: 'e.filing_date', desc: true, nullable: true, type: 'date' }, DOCUMENT],
  date_oldest: [{ expr: 'e.filing_date', desc: false, nullable: true, type: 'date' }, DOCUMENT],
};

/**
 * The `q.limit` hits after `after` in `sort`'s order among `total` matches at version `pin` (`q.offset` is the
 * position of the first, which the strategy's choice of index reads). Few matches are sorted whole, as on the
 * first page (sortedWay); many are read off the sort's index from the row on.
 */
export async function entitiesAfter(
  pool: pg.Pool,
  ctx: SearchContext,
  q: EntitySearch,
  sort: SortKey,
  after: Keys,
  at: { pin: number; total: number; now: Versions },
): Promise<RowsAfter<EntityHit>> {
  const s = await entityStrategy(pool, ctx, q);
  const way = await sortedWay(pool, ctx, s, sort, at.total);
  if (way === 'nothing') return { rows: [], last: null };
  const sql = s.sql.fork();
  const sources = entitySources(sql, at.pin, at.now);
  const keys = SORT_KEYS[sort];
  const select = entityHitColumns('e');
  if (way !== 'sort all')
    return keysetRows<EntityHit>(pool, { select, from: sources, where: s.where, keys, sql }, after, q.limit);
  // Sorting all: the fence (OFFSET 0) keeps PostgreSQL from walking the sort's index instead.
  const from = sources.map((f) => ({
    from: `(SELECT * FROM ${f.from} WHERE ${f.where} AND ${s.where} OFFSET 0) e`,
    where: 'true',
  }));
  return keysetRows<EntityHit>(pool, { select, from, where: 'true', keys, sql, read: 'whole' }, after, q.limit);
}

/** The keys of the entity `documentNumber` in `sort`'s order, as the live table holds it. */
export async function entityKeys(pool: pg.Pool, sort: SortKey, documentNumber: string): Promise<Keys | null> {
  const keys = SORT_KEYS[sort];
  const { rows } = await pool.query(
    `SELECT ${keyColumns(keys)} FROM registry.entities e WHERE e.document_number = $1`,
    [documentNumber],
  );
  return rows[0] ? rowKeys(rows[0], keys) : null;
}
