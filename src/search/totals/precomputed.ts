// Exact totals without counting hundreds of thousands of rows: broad entity queries add up the
// precomputed counts (registry.entity_counts by slice, status, type and filing year;
// registry.entity_day_counts by day), which the importer keeps in step with the entities.
import type pg from 'pg';
import { Sql } from '../sql.js';

export interface SliceCount {
  /**
   * The slice of registry.entity_counts: '' all entities, 'c:CITY', 'w:WORD', 'p:X' (a one- or
   * two-character prefix), 'c:CITY|w:WORD', 'c:CITY|p:X'.
   */
  slice: string;
  /** SQL over `e` selecting the slice's entities (for the days the yearly counts cannot split). */
  predicate: (sql: Sql) => string;
  statuses?: string[];
  types?: string[];
  after?: string;
  before?: string;
}

/** The statuses, types and filing dates a count is taken with. */
export type CountFilters = Pick<SliceCount, 'statuses' | 'types' | 'after' | 'before'>;

const jan1 = (y: number): string => `${String(y).padStart(4, '0')}-01-01`;
const dec31 = (y: number): string => `${String(y).padStart(4, '0')}-12-31`;
const yearOf = (d: string): number => Number(d.slice(0, 4));

/** The whole years inside [after, before] and the partial date ranges at its ends. */
export function splitYears(
  after: string | undefined,
  before: string | undefined,
): { years: [number, number] | null; ranges: Array<[string, string]> } {
  if (after === undefined && before === undefined) return { years: null, ranges: [] };
  const a = after ?? '0001-01-01';
  const b = before ?? '9999-12-31';
  if (a > b) return { years: [1, 0], ranges: [] };
  const ya = yearOf(a);
  const yb = yearOf(b);
  const first = a === jan1(ya) ? ya : ya + 1;
  const last = b === dec31(yb) ? yb : yb - 1;
  const ranges: Array<[string, string]> = [];
  if (ya === yb) {
    if (first > last) ranges.push([a, b]);
  } else {
    if (a !== jan1(ya)) ranges.push([a, dec31(ya)]);
    if (b !== dec31(yb)) ranges.push([jan1(yb), b]);
  }
  return { years: [first, last], ranges };
}

const filterConditions = (sql: Sql, c: CountFilters, prefix: string): string[] => [
  ...(c.statuses ? [`${prefix}status = ANY(${sql.p(c.statuses)}::text[])`] : []),
  ...(c.types ? [`${prefix}entity_type = ANY(${sql.p(c.types)}::text[])`] : []),
];

/**
 * The precomputed counts of `slices` summed, with the filters' statuses and types, over the whole
 * years `years` (null: all).
 */
export function countsSum(
  sql: Sql,
  slices: readonly string[],
  c: CountFilters,
  years: [number, number] | null,
): string {
  const where = [
    `slice = ANY(${sql.p(slices)}::text[])`,
    ...filterConditions(sql, c, ''),
    ...(years ? [`filing_year BETWEEN ${sql.p(years[0])} AND ${sql.p(years[1])}`] : []),
  ];
  return `(SELECT coalesce(sum(n), 0) FROM registry.entity_counts WHERE ${where.join(' AND ')})`;
}

/** The exact number of entities in a slice with the given statuses, types and filing dates. */
export async function countSlice(pool: pg.Pool, c: SliceCount): Promise<number> {
  const { years, ranges } = splitYears(c.after, c.before);
  const sql = new Sql();
  const filters = (prefix: string): string[] => filterConditions(sql, c, prefix);
  const parts = [countsSum(sql, [c.slice], c, years)];
  for (const [from, to] of ranges) {
    const days = `filing_date BETWEEN ${sql.p(from)}::date AND ${sql.p(to)}::date`;
    parts.push(
      c.slice === ''
        ? `(SELECT coalesce(sum(n), 0) FROM registry.entity_day_counts WHERE ${[days, ...filters('')].join(' AND ')})`
        : `(SELECT count(*) FROM registry.entities e
            WHERE ${[c.predicate(sql), `e.${days}`, ...filters('e.')].join(' AND ')})`,
    );
  }
  const { rows } = await pool.query<{ n: number }>(`SELECT (${parts.join(' + ')})::bigint AS n`, sql.params);
  return rows[0]!.n;
}
