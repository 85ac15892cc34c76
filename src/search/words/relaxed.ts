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
  // Most queries are held as typed: the rows of a word as typed (not its typos') answer at once.
  const typed = terms.filter((t) => t.expansions.includes(t.word)).sort((a, b) => a.rows - b.rows)[0];
  if (typed && (await holdsAll(pool, from, column, terms, { term: typed, words: [typed.word] }))) return false;
  const rarest = [...terms].sort((a, b) => a.rows - b.rows)[0]!;
  return !(await holdsAll(pool, from, column, terms, { term: rarest, words: rarest.expansions }));
}

/**
 * Whether a row holds every term, read through the index by `by.words` alone (of `by.term`), the other
 * terms checked on its rows: the words' index only builds whole bitmaps, and a common word's (ST, GROUP)
 * or a number's typos cost more than the rows they would rule out.
 */
async function holdsAll(
  pool: pg.Pool | pg.PoolClient,
  from: string,
  column: string,
  terms: readonly Term[],
  by: { term: Term; words: string[] },
): Promise<boolean> {
  const sql = new Sql();
  const indexed = `${column} && ${sql.p(by.words)}::text[]`;
  const checked = termsMatch(
    sql,
    `(${column} || '{}'::text[])`,
    terms.filter((t) => t !== by.term),
  );
  const { rows } = await pool.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${from} WHERE ${indexed} AND ${checked}) AS found`,
    sql.params,
  );
  return rows[0]!.found;
}

/** The words' condition: every term, or when relaxed every term but one. */
export const wordsMatch = (relaxed: boolean): typeof termsMatch => (relaxed ? relaxedTermsMatch : termsMatch);
