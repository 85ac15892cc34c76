// Fuzzy matching by words. Each query word is expanded against the dictionary of distinct words of
// its kind: itself, the words a typo or two away, and for the last word the words it begins. A row
// matches when it holds an expansion of every query word. A frequent word (see FREQUENT_WORD)
// matches itself only: it was not mistyped, and its count is known exactly.
import type pg from 'pg';
import { inTransaction } from '../db/pool.js';
import { trigramCount } from './normalize.js';
import type { Sql } from './sql.js';

export type Dictionary = 'entity_words' | 'officer_words' | 'agent_words' | 'address_words';

/** Edits allowed for a word of this length: none for short words, one, then two for long ones. */
export function editsAllowed(word: string): number {
  return word.length <= 3 ? 0 : word.length <= 7 ? 1 : 2;
}

/** The last word also matches the words it begins, once it has this many characters. */
const PREFIX_MIN = 3;
/** At most this many (the most frequent) words a prefix expands to. */
const PREFIX_MAX_WORDS = 500;
/** At most this many query words take part (longer queries are rare and their extra words add little). */
export const MAX_QUERY_WORDS = 8;

export interface Term {
  readonly word: string;
  /** Dictionary words it matches (empty: nothing matches). */
  readonly expansions: string[];
  /** Rows holding one of them (an upper bound of the rows matching this term). */
  readonly rows: number;
  readonly frequent: boolean;
}

/**
 * The least pg_trgm similarity of any word within `edits` edits of `word`. An edit removes at most
 * three of the word's trigrams and adds at most three, so n trigrams keep n - 3e of theirs among at
 * most n + 3e. Searching the dictionary's trigram index at this threshold instead of one low enough
 * for every length (0.2) finds the same words among far fewer candidates: STELLAR's bound is 0.45.
 */
export function similarityBound(word: string, edits: number): number {
  const n = trigramCount(word);
  // Less a margin: similarity() is a float4, the bound a double.
  return Math.max(0, (n - 3 * edits) / (n + 3 * edits) - 0.001);
}

/**
 * The trigram thresholds for a query's words: one-edit words search with `%`
 * (pg_trgm.similarity_threshold), two-edit words with `%>>` (strict word similarity, which equals
 * similarity between single words), each at the lowest bound of its words.
 */
function thresholds(used: readonly string[]): { oneEdit: number; twoEdits: number } {
  const lowest = (edits: number): number => Math.min(1, ...used.filter((w) => editsAllowed(w) === edits).map((w) => similarityBound(w, edits)));
  return { oneEdit: lowest(1), twoEdits: lowest(2) };
}

/** Expands query words against a dictionary, in one query (and its transaction, for the thresholds). */
export async function expandWords(pool: pg.Pool, dictionary: Dictionary, words: readonly string[]): Promise<Term[]> {
  const used = words.slice(0, MAX_QUERY_WORDS);
  if (used.length === 0) return [];
  const { oneEdit, twoEdits } = thresholds(used);
  const rows = await inTransaction(pool, async (client) => {
    await client.query({
      name: 'trigram_thresholds',
      text: `SELECT set_config('pg_trgm.similarity_threshold', $1, true), set_config('pg_trgm.strict_word_similarity_threshold', $2, true)`,
      values: [String(oneEdit), String(twoEdits)],
    });
    const result = await client.query<{ i: number; frequent: boolean; expansions: string[]; rows: number }>(
      `SELECT q.i, coalesce(f.frequent, false) AS frequent, x.expansions, x.rows
       FROM unnest($1::text[], $2::int[], $3::bool[]) WITH ORDINALITY AS q(w, d, prefix, i)
       LEFT JOIN registry.${dictionary} f ON f.word = q.w
       CROSS JOIN LATERAL (
         SELECT coalesce(array_agg(word ORDER BY word), '{}') AS expansions, coalesce(sum(n), 0)::bigint AS rows FROM (
           SELECT word, n FROM registry.${dictionary} WHERE word = q.w
           UNION
           SELECT word, n FROM registry.${dictionary}
           WHERE q.d = 1 AND f.frequent IS NOT TRUE AND word % q.w AND levenshtein_less_equal(word, q.w, 1) <= 1
           UNION
           SELECT word, n FROM registry.${dictionary}
           WHERE q.d = 2 AND f.frequent IS NOT TRUE AND word %>> q.w AND levenshtein_less_equal(word, q.w, 2) <= 2
           UNION
           (SELECT word, n FROM registry.${dictionary}
            WHERE q.prefix AND f.frequent IS NOT TRUE AND word > q.w AND word < q.w || '~'
            ORDER BY n DESC, word LIMIT ${PREFIX_MAX_WORDS})
         ) e
       ) x
       ORDER BY q.i`,
      [used, used.map(editsAllowed), used.map((w, i) => i === used.length - 1 && w.length >= PREFIX_MIN)],
    );
    return result.rows;
  });
  return rows.map((r, i) => ({ word: used[i]!, expansions: r.expansions, rows: r.rows, frequent: r.frequent }));
}

/** `column` holds an expansion of every term (no terms, or a term without expansions: nothing). */
export function termsMatch(sql: Sql, column: string, terms: readonly Term[]): string {
  if (terms.length === 0 || terms.some((t) => t.expansions.length === 0)) return 'false';
  return terms.map((t) => `${column} && ${sql.p(t.expansions)}::text[]`).join(' AND ');
}

/** An upper bound of the rows all terms match. */
export const estimateRows = (terms: readonly Term[]): number => Math.min(...terms.map((t) => t.rows));
