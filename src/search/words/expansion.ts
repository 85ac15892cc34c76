// Fuzzy matching by words. Each query word is expanded against the dictionary of distinct words of
// its kind: itself, the words a typo or two away, and for the last word the words it begins. A row
// matches when it holds an expansion of every query word. A frequent word (the importer's
// FREQUENT_WORD) matches itself only: it was not mistyped, and its count is known exactly.
import type pg from 'pg';
import { keysTable, type Dictionary } from '../../registry/dictionaries.js';
import type { Sql } from '../sql.js';
import {
  MAX_QUERY_WORDS,
  NO_TYPO_MAX_LENGTH,
  ONE_TYPO_MAX_LENGTH,
  PREFIX_EXPANSION_MAX_WORDS,
  PREFIX_EXPANSION_MIN_LENGTH,
} from '../thresholds.js';

/** Edits allowed for a word of this length: none for short words, one, then two for long ones. */
export function editsAllowed(word: string): number {
  return word.length <= NO_TYPO_MAX_LENGTH ? 0 : word.length <= ONE_TYPO_MAX_LENGTH ? 1 : 2;
}

export interface Term {
  readonly word: string;
  /** Dictionary words it matches (empty: nothing matches). */
  readonly expansions: string[];
  /** Rows holding one of them (an upper bound of the rows matching this term). */
  readonly rows: number;
  readonly frequent: boolean;
  /**
   * The expansion in the most rows, and their number (exact: a row's words are distinct, and daily
   * files move the counts).
   */
  readonly top: { readonly word: string; readonly rows: number } | null;
  /**
   * The expansions with counts of their own by status, type and year (entity words: entity_counts
   * 'w:WORD'), and the rows of the others.
   */
  readonly counted: string[];
  readonly uncountedRows: number;
}

/** The dictionaries whose words can have counts of their own (entity_words.counted). */
const COUNTED_IN: ReadonlySet<Dictionary> = new Set(['entity_words']);

/**
 * Expands query words against a dictionary, in one query. Neighbours come from the dictionary's table
 * of deletion keys (entity_word_keys and the like, with registry.word_deletes): the words sharing a
 * key with the query word, checked for their edit distance.
 */
export async function expandWords(
  pool: pg.Pool | pg.PoolClient,
  dictionary: Dictionary,
  words: readonly string[],
): Promise<Term[]> {
  const used = words.slice(0, MAX_QUERY_WORDS);
  if (used.length === 0) return [];
  const counted = COUNTED_IN.has(dictionary) ? 'counted' : 'false';
  const { rows } = await pool.query<{
    i: number;
    frequent: boolean;
    expansions: string[];
    rows: number;
    top_word: string | null;
    top_rows: number | null;
    counted: string[];
    uncounted_rows: number;
  }>({
    name: `expand_${dictionary}`,
    text: `SELECT q.i, coalesce(f.frequent, false) AS frequent, x.expansions, x.rows, x.top_word, x.top_rows, x.counted,
              x.uncounted_rows
       FROM unnest($1::text[], $2::int[], $3::bool[]) WITH ORDINALITY AS q(w, d, prefix, i)
       LEFT JOIN registry.${dictionary} f ON f.word = q.w
       CROSS JOIN LATERAL (
         SELECT coalesce(array_agg(word ORDER BY word), '{}') AS expansions, coalesce(sum(n), 0)::bigint AS rows,
                (array_agg(word ORDER BY n DESC, word))[1] AS top_word, max(n)::bigint AS top_rows,
                coalesce(array_agg(word ORDER BY word) FILTER (WHERE counted), '{}') AS counted,
                coalesce(sum(n) FILTER (WHERE NOT counted), 0)::bigint AS uncounted_rows FROM (
           SELECT word, n, ${counted} AS counted FROM registry.${dictionary} WHERE word = q.w
           UNION
           SELECT word, n, ${counted} FROM registry.${dictionary}
           WHERE q.d > 0 AND f.frequent IS NOT TRUE AND levenshtein_less_equal(word, q.w, q.d) <= q.d
             AND word IN (SELECT k.word FROM registry.${keysTable(dictionary)} k
                          WHERE k.key = ANY(registry.word_deletes(q.w, q.d)))
           UNION
           (SELECT word, n, ${counted} FROM registry.${dictionary}
            WHERE q.prefix AND f.frequent IS NOT TRUE AND word > q.w AND word < q.w || '~'
            ORDER BY n DESC, word LIMIT ${PREFIX_EXPANSION_MAX_WORDS})
         ) e
       ) x
       ORDER BY q.i`,
    values: [
      used,
      used.map(editsAllowed),
      used.map((w, i) => i === used.length - 1 && w.length >= PREFIX_EXPANSION_MIN_LENGTH),
    ],
  });
  return rows.map((r, i) => ({
    word: used[i]!,
    expansions: r.expansions,
    rows: r.rows,
    frequent: r.frequent,
    top: r.top_word === null ? null : { word: r.top_word, rows: r.top_rows! },
    counted: r.counted,
    uncountedRows: r.uncounted_rows,
  }));
}

/**
 * `column` holds an expansion of every term (no terms, or a term without expansions: nothing); `keys`
 * turns a term's expansions (a parameter) into what `column` holds, when that is not the words themselves.
 */
export function termsMatch(
  sql: Sql,
  column: string,
  terms: readonly Term[],
  keys = (words: string): string => `${words}::text[]`,
): string {
  if (terms.length === 0 || terms.some((t) => t.expansions.length === 0)) return 'false';
  return terms.map((t) => `${column} && ${keys(sql.p(t.expansions))}`).join(' AND ');
}

/**
 * An upper bound of the rows all terms match (Infinity without terms), and whether it is near the
 * total: one term's bound is the rows of its words, counted twice only where a row holds two of them;
 * several terms' is the smallest of theirs, and their rows together can be far fewer, as can the rows
 * that other filters of the query (`filtered`) keep.
 */
export const matchBound = (terms: readonly Term[], filtered: boolean): { bound: number; tight: boolean } => ({
  bound: terms.length ? Math.min(...terms.map((t) => t.rows)) : Infinity,
  tight: terms.length === 1 && !filtered,
});
