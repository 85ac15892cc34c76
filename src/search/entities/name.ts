// What an entity query's name asks for: nothing, a name that normalizes to nothing, the start of
// names (one or two characters), or words, each with its expansions (docs/search.md, "What a query
// means").
import type pg from 'pg';
import { correctLegalTypos } from '../../text/legal-typos.js';
import { isWeakWord, nameKey } from '../../text/normalize.js';
import { INITIAL_MAX_LENGTH, NO_TYPO_MAX_LENGTH, PREFIX_QUERY_MAX_LENGTH } from '../thresholds.js';
import { oneEditAway } from '../words/edits.js';
import { carries, expandWords, type Expand, type Term } from '../words/expansion.js';
import { matchesSome, noneHoldsAll } from '../words/relaxed.js';

export type NameMatch =
  | { kind: 'none' }
  | { kind: 'empty' }
  | { kind: 'prefix'; norm: string; core: string }
  | {
      kind: 'words';
      norm: string;
      core: string;
      terms: Term[];
      /** No entity's name holds every word: a row matches holding all but one (docs/search.md). */
      relaxed: boolean;
    };

export type Named = Extract<NameMatch, { kind: 'prefix' | 'words' }>;

export const NO_NAME: NameMatch = { kind: 'none' };

const NAMES = 'registry.entities e';
const WORDS = 'e.name_words';

/** A word one edit from a weak word (LLa: LLC, Ol: OF, LLCR: LLC), or itself one. */
const nearWeakWord = (word: string): boolean => isWeakWord(word) || oneEditAway(word).some(isWeakWord);

/**
 * `expand` looks the words up (by default, one statement for this name alone). A legal-form word mistyped
 * (LIITED) and registered in no name is read as that legal form (src/text/legal-typos.ts).
 */
export async function analyzeName(
  pool: pg.Pool | pg.PoolClient,
  name: string | undefined,
  expand: Expand = (dictionary, words) => expandWords(pool, dictionary, words),
): Promise<NameMatch> {
  if (name === undefined) return { kind: 'none' };
  const answer = await analyzeKey(pool, name, expand);
  if (answer.kind !== 'words') return answer;
  const registered = new Set(answer.terms.filter((t) => t.expansions.includes(t.word)).map((t) => t.word));
  const corrected = correctLegalTypos(name, (w) => registered.has(w));
  return corrected === null ? answer : analyzeKey(pool, corrected, expand);
}

async function analyzeKey(pool: pg.Pool | pg.PoolClient, name: string, expand: Expand): Promise<NameMatch> {
  const key = nameKey(name);
  if (key.core === '') return { kind: 'empty' };
  // One or two characters: the start of the name, not a fuzzy word.
  if (key.core.length <= PREFIX_QUERY_MAX_LENGTH) return { kind: 'prefix', norm: key.norm, core: key.core };
  const terms = await expand('entity_words', words(key.words));
  const relaxed = await noneHoldsAll(pool, NAMES, WORDS, terms);
  const answer = { kind: 'words' as const, norm: key.norm, core: key.core, terms, relaxed };
  // Before answering nothing: without its initials and the words one edit from a weak word (LLCR, PLCL).
  const fewer = terms.filter((t) => t.word.length > INITIAL_MAX_LENGTH && !nearWeakWord(t.word));
  if (fewer.length === terms.length || !fewer.some((t) => carries(t.word))) return answer;
  if (await matchesSome(pool, NAMES, WORDS, terms, relaxed)) return answer;
  return { ...answer, terms: fewer, relaxed: await noneHoldsAll(pool, NAMES, WORDS, fewer) };
}

/** The words of a name that `analyzeName` looks up first (none for a prefix or an empty name). */
export function expandedWords(name: string): string[] {
  const key = nameKey(name);
  return key.core === '' || key.core.length <= PREFIX_QUERY_MAX_LENGTH ? [] : words(key.words);
}

/**
 * The words that must match: a short word one edit from a weak word (LLa, Ol: LLC, OF) is read as that
 * weak word, which decides nothing, when a longer word carries the query. Not an initial: most are one
 * edit from one (O: OF, CO), and an initial is as telling as any word (INITIAL_MAX_LENGTH).
 */
function words(all: readonly string[]): string[] {
  if (!all.some(carries)) return [...all];
  const telling = (w: string): boolean => w.length > NO_TYPO_MAX_LENGTH || w.length <= INITIAL_MAX_LENGTH;
  return all.filter((w) => telling(w) || !nearWeakWord(w));
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
