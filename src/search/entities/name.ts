// What an entity query's name asks for: nothing, a name that normalizes to nothing, the start of
// names (one or two characters), or words, each with its expansions (docs/search.md, "What a query
// means").
import type pg from 'pg';
import { nameKey } from '../../registry/normalize.js';
import { PREFIX_QUERY_MAX_LENGTH } from '../thresholds.js';
import { expandWords, type Term } from '../words/expansion.js';

export type NameMatch =
  | { kind: 'none' }
  | { kind: 'empty' }
  | { kind: 'prefix'; norm: string; core: string }
  | { kind: 'words'; norm: string; core: string; terms: Term[] };

export type Named = Extract<NameMatch, { kind: 'prefix' | 'words' }>;

export const NO_NAME: NameMatch = { kind: 'none' };

export async function analyzeName(pool: pg.Pool | pg.PoolClient, name: string | undefined): Promise<NameMatch> {
  if (name === undefined) return { kind: 'none' };
  const key = nameKey(name);
  if (key.core === '') return { kind: 'empty' };
  // One or two characters: the start of the name, not a fuzzy word.
  if (key.core.length <= PREFIX_QUERY_MAX_LENGTH) return { kind: 'prefix', norm: key.norm, core: key.core };
  return { kind: 'words', norm: key.norm, core: key.core, terms: await expandWords(pool, 'entity_words', key.words) };
}

/** Whether the name selects rows (a prefix or words), rather than none or all. */
export const isNamed = (name: NameMatch): name is Named => name.kind === 'prefix' || name.kind === 'words';

/** The name's term when it has one word to match (weak words and a legal form aside). */
export const soleTerm = (name: NameMatch): Term | null =>
  name.kind === 'words' && name.terms.length === 1 ? name.terms[0]! : null;

/** The name's term when its core is that word alone (weak words aside: similarity is taken to the core). */
export function wordAlone(name: NameMatch): Term | null {
  const term = soleTerm(name);
  return term && name.kind === 'words' && name.core === term.word ? term : null;
}
