// Fuzzy matching by words. Each query word is expanded against the dictionary of distinct words of
// its kind: itself, the words a typo or two away, and for the last word the words it begins. A row
// matches when it holds an expansion of every query word. A frequent word (see FREQUENT_WORD)
// matches itself only: it was not mistyped, and its count is known exactly.
import type pg from 'pg';
import { keysTable, type Dictionary } from '../registry/dictionaries.js';
import { countRows } from './counts.js';
import { Sql } from './sql.js';

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
  /** The expansion in the most rows, and their number (exact: a row's words are distinct, and daily files move the counts). */
  readonly top: { readonly word: string; readonly rows: number } | null;
  /** The expansions with counts of their own by status, type and year (entity words: entity_counts 'w:WORD'), and the rows of the others. */
  readonly counted: string[];
  readonly uncountedRows: number;
}

/** The dictionaries whose words can have counts of their own (migration 035). */
const COUNTED_IN: ReadonlySet<Dictionary> = new Set(['entity_words']);

/**
 * Expands query words against a dictionary, in one query. Neighbours come from the dictionary's table
 * of deletion keys (migrations 019 and 038): the words sharing a key with the query word, checked for
 * their edit distance.
 */
export async function expandWords(pool: pg.Pool, dictionary: Dictionary, words: readonly string[]): Promise<Term[]> {
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
    text: `SELECT q.i, coalesce(f.frequent, false) AS frequent, x.expansions, x.rows, x.top_word, x.top_rows, x.counted, x.uncounted_rows
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
             AND word IN (SELECT k.word FROM registry.${keysTable(dictionary)} k WHERE k.key = ANY(registry.word_deletes(q.w, q.d)))
           UNION
           (SELECT word, n, ${counted} FROM registry.${dictionary}
            WHERE q.prefix AND f.frequent IS NOT TRUE AND word > q.w AND word < q.w || '~'
            ORDER BY n DESC, word LIMIT ${PREFIX_MAX_WORDS})
         ) e
       ) x
       ORDER BY q.i`,
    values: [used, used.map(editsAllowed), used.map((w, i) => i === used.length - 1 && w.length >= PREFIX_MIN)],
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
  pairwiseMax = PAIRWISE_MAX,
): Promise<number> {
  if (!t.top) return 0;
  const others = t.expansions.filter((w) => w !== t.top!.word);
  if (others.length === 0) return t.top.rows;
  if (t.expansions.length <= pairwiseMax) return t.rows - (await countRepeats(pool, from, column, t.expansions));
  // Many words, few of them in many rows: their rows from the dictionary (CAKE among entities, 84 words, 7 of them
  // in 187,417 of its 188,281 rows: 2.5 s counted, cold).
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

/** At most this many rows of a term's expansions without counts of their own are read to add its total up. */
const UNCOUNTED_ROWS_MAX = 5_000;

/** Whether a term's total can be added up (addedUpSql): its counted words few enough to pair, the others' rows few. */
export const addsUp = (t: Term, pairwiseMax = PAIRWISE_MAX): boolean =>
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
      `+ (SELECT count(*) FROM ${from} WHERE ${column} && ${sql.p(uncounted)}::text[] AND NOT (${column} && ${sql.p(t.counted)}::text[]) AND ${condition()})`,
    );
  }
  return `(${parts.join(' ')})`;
}

/**
 * Up to this many words (780 pairs), a term is counted by its pairs (countRepeats). Officers at 12.6
 * million entities, warm: HAND, 14 words, 17 ms against 359; ROWE, 34, 65 against 149; LARA, 59 (1,711
 * pairs), 430 against 1,294, but its statement is large to plan, so more words are counted as before.
 */
const PAIRWISE_MAX = 40;

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

/** The k - 1 summed over the rows of `from` that hold k >= 2 of `words` (two or more) and for which `also` holds (see countRepeats). */
function repeatsSql(sql: Sql, from: string, column: string, words: readonly string[], also = 'true'): string {
  const pairs = words.flatMap((a, i) => words.slice(i + 1).map((b) => [a, b]));
  const all = sql.p(words);
  return `(SELECT coalesce(sum(cardinality(ARRAY(SELECT unnest(${column}) INTERSECT SELECT unnest(${all}::text[]))) - 1), 0)
     FROM ${from} WHERE (${pairs.map((pair) => `${column} @> ${sql.p(pair)}::text[]`).join(' OR ')}) AND ${also})`;
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
