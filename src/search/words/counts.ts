// The exact number of rows matching one term, read from the dictionary's counts (or the precomputed
// counts of its words) rather than by reading every row: the rows holding two or more of its words
// are the only ones read.
import type pg from 'pg';
import { Sql } from '../sql.js';
import { PAIRWISE_WORDS_MAX, UNCOUNTED_ROWS_MAX } from '../thresholds.js';
import { countRows } from '../totals/total.js';
import type { Term } from './expansion.js';

/**
 * The exact number of rows of `from` matching a single term in `column`, reading only some of them:
 * from the dictionary's counts and the few rows holding two of its words (countRepeats); for a term
 * of many words of which few are counted words, added up the same way over those (addedUpSql); else
 * the rows holding its most common word from the dictionary and a statement counting the rows holding
 * another of its words but not that one (MORA: 50,401 of its 146,738 officers hold its most common word
 * and are not read).
 */
export async function countTerm(
  pool: pg.Pool,
  from: string,
  column: string,
  t: Term,
  pairwiseMax = PAIRWISE_WORDS_MAX,
): Promise<number> {
  if (!t.top) return 0;
  const others = t.expansions.filter((w) => w !== t.top!.word);
  if (others.length === 0) return t.top.rows;
  if (t.expansions.length <= pairwiseMax) return t.rows - (await countRepeats(pool, from, column, t.expansions));
  // Many words, few of them in many rows: their rows from the dictionary (CAKE among entities, 84 words,
  // 7 of them in 187,417 of its 188,281 rows: 2.5 s counted, cold).
  if (addsUp(t, pairwiseMax)) {
    const sql = new Sql();
    const { rows } = await pool.query<{ n: number }>(
      `SELECT ${addedUpSql(sql, from, column, t, String(t.rows - t.uncountedRows))}::bigint AS n`,
      sql.params,
    );
    return rows[0]!.n;
  }
  return (
    t.top.rows +
    (await countRows(pool, from, `${column} && $1::text[] AND NOT (${column} && ARRAY[$2]::text[])`, [
      others,
      t.top.word,
    ]))
  );
}

/** Whether a term's total can be added up (addedUpSql): its counted words few enough to pair, the others' rows few. */
export const addsUp = (t: Term, pairwiseMax = PAIRWISE_WORDS_MAX): boolean =>
  t.counted.length <= pairwiseMax && t.uncountedRows <= UNCOUNTED_ROWS_MAX;

/**
 * The rows of `from` matching term `t` for which `also` holds (all rows without it), added up: `countedSum`
 * (SQL: the rows of its counted words for which `also` holds, from the dictionary or the precomputed counts),
 * less k - 1 for each such row holding k of them (found through each pair), plus the rows holding only its
 * other expansions (few) for which `also` holds. `also` is written into `sql` only where used: a statement
 * must use every parameter it is given.
 */
export function addedUpSql(
  sql: Sql,
  from: string,
  column: string,
  t: Term,
  countedSum: string,
  also?: () => string,
): string {
  let written: string | undefined;
  const condition = (): string => (written ??= also?.() ?? 'true');
  const uncounted = t.expansions.filter((w) => !t.counted.includes(w));
  const parts = [countedSum];
  if (t.counted.length > 1) parts.push(`- ${repeatsSql(sql, from, column, t.counted, condition())}`);
  if (uncounted.length > 0) {
    parts.push(
      `+ (SELECT count(*) FROM ${from} WHERE ${column} && ${sql.p(uncounted)}::text[]
         AND NOT (${column} && ${sql.p(t.counted)}::text[]) AND ${condition()})`,
    );
  }
  return `(${parts.join(' ')})`;
}

/**
 * The rows holding one of `words` are the dictionary's counts summed, less k - 1 for each row holding
 * k of them. Those rows are found by the index through each pair of words and are few, where counting
 * the rows of all but the commonest word read a heap page for each (JOHNS among officers: JOHN, JOHNS,
 * JOHNSON, JOHNSTON, 272,225 rows: 1.2 s counted, 33 ms by its 1,372 rows holding two).
 */
async function countRepeats(pool: pg.Pool, from: string, column: string, words: readonly string[]): Promise<number> {
  const sql = new Sql();
  const { rows } = await pool.query<{ over: number }>(
    `SELECT ${repeatsSql(sql, from, column, words)}::bigint AS over`,
    sql.params,
  );
  return rows[0]!.over;
}

/**
 * The k - 1 summed over the rows of `from` that hold k >= 2 of `words` (two or more) and for which
 * `also` holds (see countRepeats).
 */
function repeatsSql(sql: Sql, from: string, column: string, words: readonly string[], also = 'true'): string {
  const pairs = words.flatMap((a, i) => words.slice(i + 1).map((b) => [a, b]));
  const all = sql.p(words);
  return `(SELECT coalesce(sum(cardinality(ARRAY(SELECT unnest(${column})
                                                INTERSECT SELECT unnest(${all}::text[]))) - 1), 0)
     FROM ${from} WHERE (${pairs.map((pair) => `${column} @> ${sql.p(pair)}::text[]`).join(' OR ')}) AND ${also})`;
}
