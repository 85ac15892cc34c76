// The word dictionaries (registry.entity_words, officer_words, agent_words, address_words) and their
// deletion keys: each word of a kind of name with the rows it is in, for fuzzy expansion of query words.
import type pg from 'pg';
import { keysTable, type Dictionary } from '../../../text/dictionaries.js';
import type { Derivation, Schema } from './derivation.js';

/** A word in at least this many rows is frequent: it matches itself only, and has its own counts. */
export const FREQUENT_WORD = 20_000;

/**
 * A word of entity names in at least this many rows has counts of its own by status, type and filing
 * year, as a frequent word has (entity_counts 'w:WORD'): the total of a word with those filters is then
 * added up rather than counted on its matches (src/search/entities/totals.ts).
 */
export const COUNTED_WORD = 1_000;

/** The rows a word must be in to be frequent, and (entity words) to have counts of its own; set at each full load. */
export interface WordThresholds {
  readonly frequent: number;
  readonly counted: number;
}

export const WORD_THRESHOLDS: WordThresholds = { frequent: FREQUENT_WORD, counted: COUNTED_WORD };

/**
 * Each dictionary: its table, the array column of which table it counts, and whether its words have
 * counts of their own.
 */
const DICTIONARIES = [
  { table: 'entity_words', source: 'entities', column: 'name_words', counted: true },
  { table: 'address_words', source: 'entities', column: 'address_words', counted: false },
  { table: 'officer_words', source: 'officers', column: 'name_words', counted: false },
  { table: 'agent_words', source: 'agents', column: 'name_words', counted: false },
] as const;

type Source = (typeof DICTIONARIES)[number]['source'];

/**
 * Inserts the deletion keys (registry.word_keys) of the words of `dictionary` that `words` selects (a
 * query with a column `word`) into the dictionary's key table.
 */
const wordKeysSql = (s: Schema, dictionary: Dictionary, words: string): string =>
  `INSERT INTO ${s}.${keysTable(dictionary)} (key, word)
   SELECT k, word FROM (${words}) w, unnest(registry.word_keys(word)) AS k`;

/**
 * Each dictionary, then its keys, built whole from the rows it counts; agent words once the agent
 * groups are built.
 */
export function dictionaryDerivations(s: Schema, words: WordThresholds): Derivation[] {
  return DICTIONARIES.flatMap((d): Derivation[] => {
    const reads = d.source === 'officers' ? 'officers' : 'entities';
    const frequent = Number(words.frequent);
    const counted = d.counted ? `, count(*) >= least(${frequent}, ${Number(words.counted)})` : '';
    return [
      {
        table: d.table,
        after: d.source === 'agents' ? ['agents'] : [],
        reads,
        build: (c) =>
          c.query(
            `INSERT INTO ${s}.${d.table} (word, n, frequent${d.counted ? ', counted' : ''})
             SELECT w, count(*), count(*) >= ${frequent}${counted}
             FROM ${s}.${d.source}, unnest(${d.column}) AS w GROUP BY w`,
          ),
      },
      {
        table: keysTable(d.table),
        after: [d.table],
        reads,
        build: (c) => c.query(wordKeysSql(s, d.table, `SELECT word FROM ${s}.${d.table}`)),
      },
    ];
  });
}

/**
 * Moves a dictionary's counts by the words of the rows leaving (`before`) and arriving (`after`); a
 * new word arrives with its deletion keys. The statement's parts share one snapshot, so the update
 * sees only the words that were there before.
 */
async function moveDictionary(
  client: pg.PoolClient,
  s: Schema,
  d: (typeof DICTIONARIES)[number],
  before: string,
  after: string,
): Promise<void> {
  await client.query(`
    WITH moves AS MATERIALIZED (
      SELECT w, sum(delta) AS delta FROM (
        SELECT w, 1 AS delta FROM ${after}, unnest(${d.column}) AS w
        UNION ALL SELECT w, -1 FROM ${before}, unnest(${d.column}) AS w
      ) m GROUP BY w HAVING sum(delta) <> 0),
    added AS (
      INSERT INTO ${s}.${d.table} (word, n) SELECT w, delta FROM moves ON CONFLICT (word) DO NOTHING RETURNING word),
    keyed AS (${wordKeysSql(s, d.table, 'SELECT word FROM added')})
    UPDATE ${s}.${d.table} dict SET n = dict.n + m.delta FROM moves m WHERE dict.word = m.w`);
}

/**
 * After a change set: moves every dictionary by the rows it replaced (`old_entities`, `old_officers`),
 * the rows it brought (`chg_entities`, `chg_officers`), and the agent groups it reshowed (`old_agents`,
 * `new_agents`).
 */
export async function moveDictionaries(client: pg.PoolClient, s: Schema): Promise<void> {
  const rows: Record<Source, [string, string]> = {
    entities: ['old_entities', 'chg_entities'],
    officers: ['old_officers', 'chg_officers'],
    agents: ['old_agents', 'new_agents'],
  };
  for (const d of DICTIONARIES) await moveDictionary(client, s, d, ...rows[d.source]);
}
