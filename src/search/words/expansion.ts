// Fuzzy matching by words. Each query word is expanded against the dictionary of distinct words of
// its kind: itself, the words a typo or two away, in a name its short or long forms (MGMT, MANAGEMENT:
// src/text/abbreviations.ts), and for the last word the words it begins. A row
// matches when it holds an expansion of every query word. A frequent word (the importer's
// FREQUENT_WORD) matches itself only: it was not mistyped, and its count is known exactly.
import type pg from 'pg';
import { otherForms } from '../../text/abbreviations.js';
import { isStreetWord } from '../../text/normalize.js';
import { keysTable, type Dictionary } from '../../text/dictionaries.js';
import type { Sql } from '../sql.js';
import { adjacentSwaps, oneEditAway } from './edits.js';
import {
  CARRYING_WORDS,
  INITIAL_MAX_LENGTH,
  MAX_QUERY_WORDS,
  NO_TYPO_MAX_LENGTH,
  ONE_TYPO_MAX_LENGTH,
  PREFIX_EXPANSION_MAX_WORDS,
  PREFIX_EXPANSION_MIN_LENGTH,
} from '../thresholds.js';

/**
 * Edits allowed for a word of this length: none for an initial; one for other short words when the query's
 * other words carry it (a longer word, or CARRYING_WORDS words in all; else none: alone, one edit turns most
 * short words into many others); one for words up to ONE_TYPO_MAX_LENGTH characters, two for longer ones.
 */
export function editsAllowed(word: string, carried: boolean): number {
  if (word.length <= NO_TYPO_MAX_LENGTH) return carried && word.length > INITIAL_MAX_LENGTH ? 1 : 0;
  return word.length <= ONE_TYPO_MAX_LENGTH ? 1 : 2;
}

/** Whether a word of the query is longer than a short word, and so carries the short ones. */
export const carries = (word: string): boolean => word.length > NO_TYPO_MAX_LENGTH;

/**
 * The query words that must match. In an address a one-character word (a directional, N; what a typo left of a
 * street type, S for ST; a house number 1 to 9, as often mistyped) and a short word one edit from a street's type or
 * direction but not one itself (SB, AE, EN for ST, AVE, NE: frequent words, which a typo's expansions leave out)
 * need not match when a longer word carries the query, unless the address is taken as typed; in a name an initial
 * must (INITIAL_MAX_LENGTH).
 */
function requiredWords(dictionary: Dictionary, words: readonly string[], opts: ExpandOptions): string[] {
  const used = words.slice(0, MAX_QUERY_WORDS);
  if (dictionary !== 'address_words' || opts.shortAsTyped || !used.some(carries)) return used;
  return used.filter((w) => w.length > INITIAL_MAX_LENGTH && !nearStreetWord(w));
}

/** A short word one edit from a street word, and not one itself (RD typed means RD). */
const nearStreetWord = (word: string): boolean =>
  !carries(word) && !isStreetWord(word) && oneEditAway(word).some(isStreetWord);

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

/** The dictionaries of names, whose words also match their short or long forms (INTL: INTERNATIONAL). */
const NAMED_WITH_FORMS: ReadonlySet<Dictionary> = new Set(['entity_words', 'agent_words']);

/** The dictionaries whose words can have counts of their own (entity_words.counted). */
const COUNTED_IN: ReadonlySet<Dictionary> = new Set(['entity_words']);

/** Expands one query's words against a dictionary: expandWords, or one of many batched (saved searches). */
export type Expand = (dictionary: Dictionary, words: readonly string[]) => Promise<Term[]>;

/** Expands a query's words against a dictionary, in one statement (see expandWordLists). */
export async function expandWords(
  pool: pg.Pool | pg.PoolClient,
  dictionary: Dictionary,
  words: readonly string[],
  opts: ExpandOptions = {},
): Promise<Term[]> {
  return (await expandWordLists(pool, dictionary, [words], opts))[0]!;
}

export interface ExpandOptions {
  /** Every word must match, and short ones (and numbers) only as themselves: no typo (src/search/addresses.ts). */
  readonly shortAsTyped?: boolean;
  /**
   * Short words take their one edit though no other word carries them: a person's name whose words, as
   * typed, match nobody (src/search/people.ts).
   */
  readonly shortCarried?: boolean;
}

/**
 * Expands the words of several queries against a dictionary, in one statement. Neighbours come from the
 * dictionary's table of deletion keys (entity_word_keys and the like, with registry.word_deletes): the
 * words sharing a key with the query word, checked for their edit distance, counting an adjacent
 * transposition as one edit (optimal string alignment: within d of the word, or within d - 1 of one of its
 * swaps; a swap is one deletion from each side, so the keys reach it). A short word's neighbours of up to
 * its own length have no keys of their own: they are looked up among every string one edit away, frequent
 * words aside (each holds 20,000 rows or more, which a mistyped short word would add to its term).
 */
export async function expandWordLists(
  pool: pg.Pool | pg.PoolClient,
  dictionary: Dictionary,
  lists: ReadonlyArray<readonly string[]>,
  opts: ExpandOptions = {},
): Promise<Term[][]> {
  const queries = lists.map((words) => {
    const used = requiredWords(dictionary, words, opts);
    // Carried: by a longer word, or by as many words as an address's number, street and type.
    const carried = opts.shortCarried === true || used.some(carries) || used.length >= CARRYING_WORDS;
    const edits = (w: string): number => (opts.shortAsTyped && !carries(w) ? 0 : editsAllowed(w, carried));
    return used.map((w, i) => ({ w, d: edits(w), last: i === used.length - 1 }));
  });
  const all = queries.flat();
  if (all.length === 0) return lists.map(() => []);
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
       FROM unnest($1::text[], $2::int[], $3::bool[], $4::text[], $5::text[], $6::text[])
              WITH ORDINALITY AS q(w, d, prefix, swaps, near, forms, i)
       LEFT JOIN registry.${dictionary} f ON f.word = q.w
       CROSS JOIN LATERAL (
         SELECT coalesce(array_agg(word ORDER BY word), '{}') AS expansions, coalesce(sum(n), 0)::bigint AS rows,
                (array_agg(word ORDER BY n DESC, word))[1] AS top_word, max(n)::bigint AS top_rows,
                coalesce(array_agg(word ORDER BY word) FILTER (WHERE counted), '{}') AS counted,
                coalesce(sum(n) FILTER (WHERE NOT counted), 0)::bigint AS uncounted_rows FROM (
           SELECT word, n, ${counted} AS counted FROM registry.${dictionary} WHERE word = q.w
           UNION
           SELECT word, n, ${counted} FROM registry.${dictionary}
           WHERE q.d > 0 AND f.frequent IS NOT TRUE
             AND (levenshtein_less_equal(word, q.w, q.d) <= q.d
                  OR EXISTS (SELECT 1 FROM unnest(string_to_array(q.swaps, ' ')) s
                             WHERE levenshtein_less_equal(word, s, q.d - 1) <= q.d - 1))
             AND word IN (SELECT k.word FROM registry.${keysTable(dictionary)} k
                          WHERE k.key = ANY(registry.word_deletes(q.w, q.d)))
           UNION
           SELECT word, n, ${counted} FROM registry.${dictionary}
           WHERE q.near <> '' AND f.frequent IS NOT TRUE AND NOT frequent AND word = ANY(string_to_array(q.near, ' '))
           UNION
           SELECT word, n, ${counted} FROM registry.${dictionary}
           WHERE q.forms <> '' AND word = ANY(string_to_array(q.forms, ' '))
           UNION
           (SELECT word, n, ${counted} FROM registry.${dictionary}
            WHERE q.prefix AND f.frequent IS NOT TRUE AND word > q.w AND word < q.w || '~'
            ORDER BY n DESC, word LIMIT ${PREFIX_EXPANSION_MAX_WORDS})
         ) e
       ) x
       ORDER BY q.i`,
    values: [
      all.map((q) => q.w),
      all.map((q) => q.d),
      all.map((q) => q.last && q.w.length >= PREFIX_EXPANSION_MIN_LENGTH),
      all.map((q) => (q.d > 0 ? adjacentSwaps(q.w).join(' ') : '')),
      all.map((q) => (q.d > 0 && !carries(q.w) ? oneEditAway(q.w).join(' ') : '')),
      all.map((q) => (NAMED_WITH_FORMS.has(dictionary) ? otherForms(q.w).join(' ') : '')),
    ],
  });
  const terms = rows.map((r, i): Term => ({
    word: all[i]!.w,
    expansions: r.expansions,
    rows: r.rows,
    frequent: r.frequent,
    top: r.top_word === null ? null : { word: r.top_word, rows: r.top_rows! },
    counted: r.counted,
    uncountedRows: r.uncounted_rows,
  }));
  let at = 0;
  return queries.map((q) => terms.slice(at, (at += q.length)));
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
 * The relaxed match: `column` holds an expansion of every term but (at most) one, written as one
 * conjunction per term left out, so that each is read through the words' index.
 */
export function relaxedTermsMatch(
  sql: Sql,
  column: string,
  terms: readonly Term[],
  keys = (words: string): string => `${words}::text[]`,
): string {
  // The ways of leaving one term out that keep only terms with expansions; only their terms are written as
  // parameters (a parameter the statement never reads has no type PostgreSQL can tell: SMITH QQQ ZZZ).
  const ways = terms
    .map((_, out) => terms.map((_, i) => i).filter((i) => i !== out))
    .filter((w) => w.length > 0 && w.every((i) => terms[i]!.expansions.length > 0));
  const used = new Set(ways.flat());
  const held = terms.map((t, i) => (used.has(i) ? `${column} && ${keys(sql.p(t.expansions))}` : ''));
  return ways.length ? `(${ways.map((w) => `(${w.map((i) => held[i]).join(' AND ')})`).join(' OR ')})` : 'false';
}

/**
 * An upper bound of the rows all terms match (Infinity without terms), and whether it is near the
 * total: one term's bound is the rows of its words, counted twice only where a row holds two of them;
 * several terms' is the smallest of theirs, and their rows together can be far fewer, as can the rows
 * that other filters of the query (`filtered`) keep.
 */
export const matchBound = (
  terms: readonly Term[],
  filtered: boolean,
  relaxed = false,
): { bound: number; tight: boolean } => ({
  bound: !terms.length
    ? Infinity
    : relaxed
      ? // Relaxed: each term left out in turn, the smallest of the others' bounds, added up.
        terms.reduce((sum, _, out) => sum + Math.min(...terms.filter((_, i) => i !== out).map((t) => t.rows)), 0)
      : Math.min(...terms.map((t) => t.rows)),
  tight: terms.length === 1 && !filtered && !relaxed,
});
