// The relaxed match (docs/search.md, "What a query means"): a query of RELAXED_MIN_WORDS words or more
// whose words no row holds all of (one is mistyped beyond its edits, or added) matches the rows holding all
// its words but one. Only then: a query some row matches in full never lists the rows that miss a word.
import type pg from 'pg';
import { Sql } from '../sql.js';
import { RELAXED_MIN_WORDS } from '../thresholds.js';
import { relaxedTermsMatch, termsMatch, type Term } from './expansion.js';

/** Whether the terms call for the relaxed match: enough of them, and no row of `from` holds all in `column`. */
export async function noneHoldsAll(
  pool: pg.Pool | pg.PoolClient,
  from: string,
  column: string,
  terms: readonly Term[],
): Promise<boolean> {
  if (terms.length < RELAXED_MIN_WORDS) return false;
  if (terms.some((t) => t.expansions.length === 0)) return true;
  // Most queries are held as typed: their words alone (not their typos', a number's dozens) answer first.
  const typed = terms.every((t) => t.expansions.includes(t.word));
  if (typed && (await holdsAll(pool, from, (sql) => termsMatch(sql, column, terms.map(asTyped))))) return false;
  return !(await holdsAll(pool, from, (sql) => termsMatch(sql, column, terms)));
}

const asTyped = (t: Term): Term => ({ ...t, expansions: [t.word] });

/** Whether some row of `from` meets `match`. */
async function holdsAll(pool: pg.Pool | pg.PoolClient, from: string, match: (sql: Sql) => string): Promise<boolean> {
  const sql = new Sql();
  const { rows } = await pool.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${from} WHERE ${match(sql)}) AS found`,
    sql.params,
  );
  return rows[0]!.found;
}

/**
 * Whether the terms, relaxed or not, match some row of `from`: known without a statement when the relaxed
 * check found a row holding them all. Relaxed, each way of leaving a term out is asked on its own: one
 * EXISTS over all of them together was planned as a scan (WEOLEITO BEAUTY LXLC: 2.7 s at 12.6M, cold).
 */
export async function matchesSome(
  pool: pg.Pool | pg.PoolClient,
  from: string,
  column: string,
  terms: readonly Term[],
  relaxed: boolean,
): Promise<boolean> {
  if (!relaxed) {
    if (terms.length >= RELAXED_MIN_WORDS) return true;
    return terms.every((t) => t.expansions.length) && holdsAll(pool, from, (sql) => termsMatch(sql, column, terms));
  }
  for (let out = 0; out < terms.length; out++) {
    const rest = terms.filter((_, i) => i !== out);
    if (rest.every((t) => t.expansions.length) && (await holdsAll(pool, from, (sql) => termsMatch(sql, column, rest))))
      return true;
  }
  return false;
}

/** The words' condition: every term, or when relaxed every term but one. */
export const wordsMatch = (relaxed: boolean): typeof termsMatch => (relaxed ? relaxedTermsMatch : termsMatch);
