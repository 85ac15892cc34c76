// Word lookups of many searches batched into one statement a dictionary (src/search/words/expansion.ts): the saved
// searches an import evaluates, the rows of a batch match.
import DataLoader from 'dataloader';
import type pg from 'pg';
import type { Dictionary } from '../../text/dictionaries.js';
import { expandWordLists, type Expand, type Term } from './expansion.js';

/**
 * Looks up the words of many searches in one statement a dictionary: lookups asked in the same tick are
 * batched (DataLoader) and kept, so compiling S searches reads each dictionary once, not S times.
 */
export function batchedExpand(client: pg.Pool | pg.PoolClient): Expand {
  const loader = new DataLoader<string, Term[]>(async (keys) => {
    const asked = keys.map((k) => JSON.parse(k) as [Dictionary, string[]]);
    const terms: Term[][] = [];
    for (const dictionary of new Set(asked.map(([d]) => d))) {
      const mine = asked.flatMap(([d, words], i) => (d === dictionary ? [{ i, words }] : []));
      const found = await expandWordLists(
        client,
        dictionary,
        mine.map((m) => m.words),
      );
      mine.forEach((m, k) => (terms[m.i] = found[k]!));
    }
    return terms;
  });
  return (dictionary, words) => loader.load(JSON.stringify([dictionary, words]));
}
