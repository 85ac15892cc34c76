// The prefix tier of a one-word query off a first-word index (registry.entities'
// entities_first_word_order_idx, registry.officers' officers_first_word_order_idx): the names whose
// first word the query is come off it best first, a page at a time.
import type pg from 'pg';
import { Sql } from '../sql.js';
import { LONGER_FIRST_WORDS_MAX } from '../thresholds.js';
import type { FirstWordIndex, RankedQuery } from './query.js';

/**
 * The prefix tier of a one-word query (`word`, matching `expansions`): the names whose first word it
 * is, best first off the first-word index a page's worth at a time, merged with the names whose first
 * word only begins with it and that match, ranked by similarity. The first hold all of the word's
 * trigrams, so their similarity falls as their trigram count grows; the others sort from the word and
 * '0' to the word and '~' (normalized names hold only [A-Z0-9] and spaces), and are read only when the
 * dictionary's counts say they are few.
 */
export function firstWordTier(
  pool: pg.Pool,
  ix: FirstWordIndex,
  word: string,
  expansions: readonly string[],
  /** The query's other conditions, tested on each row read (expressions no index is on). */
  filter?: (sql: Sql) => string,
): NonNullable<RankedQuery['prefixTier']> {
  const alias = ix.from.split(' ').pop()!;
  const order = (qualifier: string): string => ix.order.map((c) => `${qualifier}.${c}`).join(', ');
  const orderColumns = ix.order.map((c) => `${alias}.${c.split(' ')[0]}`).join(', ');
  const select = `${ix.ref} AS ref, ${ix.text} AS text, ${orderColumns}`;
  // Asked only when the tier is read (most one-word queries are ranked another way).
  return async (need, exclude) => {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT coalesce(sum(n), 0)::bigint AS n FROM registry.${ix.dictionary} WHERE word > $1 AND word < $1 || '~'`,
      [word],
    );
    if (rows[0]!.n > LONGER_FIRST_WORDS_MAX) return null;
    const sql = new Sql();
    const [w, n] = [sql.p(word), sql.p(need)];
    const also = filter ? ` AND ${filter(sql)}` : '';
    const text = `SELECT ref FROM (
       (SELECT ${select} FROM ${ix.from}
        WHERE split_part(${ix.text}, ' ', 1) = ${w} AND NOT (${ix.ref} = ANY(${sql.p(exclude)}::int[]))${also}
        ORDER BY ${ix.trgm}, ${order(alias)} LIMIT ${n})
       UNION ALL
       SELECT ${select} FROM ${ix.from}
       WHERE ${ix.text} >= ${w} || '0' AND ${ix.text} < ${w} || '~'
         AND ${ix.words} && ${sql.p(expansions)}::text[]${also}
     ) t ORDER BY similarity(t.text, ${w}) DESC, ${order('t')} LIMIT ${n}`;
    return (await pool.query<{ ref: number }>(text, sql.params)).rows.map((r) => r.ref);
  };
}
