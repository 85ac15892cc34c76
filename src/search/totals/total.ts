// A query's exact total, with the same predicate as its page (docs/search.md, "Totals").
import type pg from 'pg';
import type { ResultCache } from './cache.js';

/**
 * A query's exact total, found once per request: in the cache, learned from a ranking statement that
 * reads every match anyway (src/search/ranking/order.ts), or else counted. Counting beside such a
 * statement read every match twice.
 */
export class Total {
  private value: Promise<number> | undefined;
  constructor(
    private readonly cache: ResultCache<number>,
    private readonly key: string,
    private readonly count: () => Promise<number>,
    /** Known without reading the matches (precomputed counts, a dictionary's). */
    readonly cheap = false,
  ) {}

  get(): Promise<number> {
    return (this.value ??= this.cache.get(this.key, this.count));
  }

  /** Neither known to this request nor cached: a statement reading every match should count them. */
  get wanted(): boolean {
    return this.value === undefined && !this.cache.has(this.key);
  }

  learn(n: number): void {
    if (this.value !== undefined) return;
    this.value = Promise.resolve(n);
    this.cache.set(this.key, n);
  }
}

/** The rows of `from` (a table and its alias) for which `condition` holds. */
export async function countRows(pool: pg.Pool, from: string, condition: string, values: unknown[]): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::bigint AS n FROM ${from} WHERE ${condition}`,
    values,
  );
  return rows[0]!.n;
}
