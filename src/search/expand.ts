// Fuzzy matching by words: each query word is expanded against the dictionary of distinct words of
// its kind (itself, words a typo or two away, and for the last word the words it begins), and a row
// matches when it holds an expansion of every query word. The candidate set is then close to the
// result set, which keeps exact counts cheap; ranking happens on that set.
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

/** A scalar subquery giving the expansions of `word` (NULL when there are none: nothing matches). */
export function expansion(sql: Sql, dictionary: Dictionary, word: string, last: boolean): string {
  const w = sql.p(word);
  const d = editsAllowed(word);
  const branches = [`SELECT word FROM registry.${dictionary} WHERE word = ${w}`];
  if (d > 0) {
    branches.push(
      `SELECT word FROM registry.${dictionary} WHERE word % ${w} AND levenshtein_less_equal(word, ${w}, ${d}) <= ${d}`,
    );
  }
  if (last && word.length >= PREFIX_MIN) {
    branches.push(
      `(SELECT word FROM registry.${dictionary} WHERE word LIKE ${w} || '%' ORDER BY n DESC, word LIMIT ${PREFIX_MAX_WORDS})`,
    );
  }
  return `(SELECT array_agg(DISTINCT word) FROM (${branches.join(' UNION ')}) x)`;
}

/** `column` holds an expansion of every word of `words` (no words: nothing matches). */
export function matchesAllWords(sql: Sql, dictionary: Dictionary, column: string, words: readonly string[]): string {
  if (words.length === 0) return 'false';
  const used = words.slice(0, MAX_QUERY_WORDS);
  return used.map((w, i) => `${column} && ${expansion(sql, dictionary, w, i === used.length - 1)}`).join(' AND ');
}
