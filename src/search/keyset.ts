// Keyset pages (docs/contract.md, "Cursors"): the rows after a given row in a list's order, found by seeking
// each index to that row, so page 10,000 costs what page one does. An order of keys in mixed directions (a date
// newest first, then a document number ascending) is no single row comparison, so the rows after (k1, k2) are
// taken as branches: k1 = v1 AND k2 after v2, then k1 after v1, then (nulls last) k1 IS NULL; each branch
// is one index range, read in order and cut at the page's size.
import type pg from 'pg';
import { Sql } from './sql.js';

export interface KeyColumn {
  /** The column as the statement reads it (`e.filing_date`). */
  readonly expr: string;
  readonly desc: boolean;
  /** A column that can be null sorts its nulls last (only the first key of an order may be nullable). */
  readonly nullable?: boolean;
  /** The SQL type to compare a cursor's value as (values travel as text or numbers). */
  readonly type: 'text' | 'date' | 'int';
}

/** A row's place in an order: its key values, as the page returned them. */
export type Keys = ReadonlyArray<string | number | null>;

/**
 * A key's direction. Where a branch has no nulls, an ascending key says NULLS FIRST: the order a newest-first
 * index read backwards gives, which the planner would otherwise sort again.
 */
const direction = (k: KeyColumn, nulls: boolean): string =>
  k.desc
    ? `DESC${k.nullable ? ' NULLS LAST' : ''}`
    : `ASC${k.nullable ? (nulls ? ' NULLS LAST' : ' NULLS FIRST') : ''}`;

/** The ORDER BY of `keys`, on their expressions or (outside the branches) on their output names. */
const keyOrder = (keys: readonly KeyColumn[], named: boolean, nulls: boolean): string =>
  keys.map((k, i) => `${named ? `k${i}` : k.expr} ${direction(k, nulls)}`).join(', ');

/** A branch of the rows after a row: its condition, and whether its rows may hold a null key. */
interface Branch {
  readonly where: string;
  readonly nulls: boolean;
}

/** The keys as output columns k0, k1, ... (dates as text, so a cursor carries them as written). */
export const keyColumns = (keys: readonly KeyColumn[]): string =>
  keys.map((k, i) => `${k.type === 'date' ? `${k.expr}::text` : k.expr} AS k${i}`).join(', ');

/** The branches, in order, that together select exactly the rows after `after`. */
function afterBranches(keys: readonly KeyColumn[], after: Keys, sql: Sql): Branch[] {
  if (after.length !== keys.length) throw new Error(`keyset: ${after.length} values for ${keys.length} keys`);
  const value = (i: number): string => `${sql.p(after[i])}::${keys[i]!.type === 'int' ? 'bigint' : keys[i]!.type}`;
  const branches: Branch[] = [];
  // From the last key to the first: equal on the keys before i, after on key i.
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!;
    const equal = keys.slice(0, i).map((p, j) => (after[j] === null ? `${p.expr} IS NULL` : `${p.expr} = ${value(j)}`));
    // Past a null (nulls come last), no later value of this key is left.
    if (after[i] === null) continue;
    branches.push({ where: [...equal, `${k.expr} ${k.desc ? '<' : '>'} ${value(i)}`].join(' AND '), nulls: false });
    if (k.nullable) branches.push({ where: [...equal, `${k.expr} IS NULL`].join(' AND '), nulls: true });
  }
  return branches;
}

/** Where rows come from: FROM ... (and joins), and a condition of its own. */
export interface Source {
  readonly from: string;
  readonly where: string;
}

export interface KeysetQuery {
  /** The columns each row returns, besides its keys (k0, k1, ...). */
  readonly select: string;
  /**
   * The sources, read apart and merged: each in its own index order, cut at the page's size (the live rows and the
   * replaced rows of a pinned walk; a union in FROM would be sorted whole).
   */
  readonly from: readonly Source[];
  /** The list's own predicate. */
  readonly where: string;
  readonly keys: readonly KeyColumn[];
  /** The statement's parameters so far (`where`'s); forked for each statement. */
  readonly sql: Sql;
  /**
   * `index` (the default): each branch is read in its index's order. `whole`: the matches are few and sorted whole
   * (a fenced `from`), so the branches are one condition over them, read and sorted once.
   */
  readonly read?: 'index' | 'whole';
}

/** A page of rows read on from a row: the rows, and the keys of the last (null when there is none). */
export interface RowsAfter<R> {
  rows: R[];
  last: Keys | null;
}

/** The `limit` rows after `after` (from the first row when null) in the keys' order. */
export async function keysetRows<R>(
  pool: pg.Pool,
  q: KeysetQuery,
  after: Keys | null,
  limit: number,
): Promise<RowsAfter<R>> {
  const sql = q.sql.fork();
  let conditions = after ? afterBranches(q.keys, after, sql) : [{ where: 'true', nulls: true }];
  if (q.read === 'whole') conditions = [{ where: `(${conditions.map((c) => c.where).join(') OR (')})`, nulls: true }];
  const lim = sql.p(limit);
  const branches = conditions.flatMap((c, b) =>
    q.from.map(
      (s) =>
        `(SELECT ${b} AS b, ${q.select}, ${keyColumns(q.keys)} FROM ${s.from}
          WHERE (${q.where}) AND ${s.where} AND ${c.where}
          ORDER BY ${keyOrder(q.keys, false, c.nulls)} LIMIT ${lim})`,
    ),
  );
  const { rows } = await pool.query<Record<string, unknown>>(
    `SELECT * FROM (${branches.join(' UNION ALL ')}) x ORDER BY b, ${keyOrder(q.keys, true, true)} LIMIT ${lim}`,
    sql.params,
  );
  const keyNames = new Set(['b', ...q.keys.map((_, i) => `k${i}`)]);
  return {
    rows: rows.map((r) => Object.fromEntries(Object.entries(r).filter(([name]) => !keyNames.has(name))) as R),
    last: rows.length ? rowKeys(rows.at(-1)!, q.keys) : null,
  };
}

/** A row's keys, as keyColumns names them. */
export const rowKeys = (row: Record<string, unknown>, keys: readonly KeyColumn[]): Keys =>
  keys.map((_, i) => row[`k${i}`] as string | number | null);
