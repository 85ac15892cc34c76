// The edits a query word may have suffered, generated from the word itself (docs/search.md, "What a
// query means"): its adjacent transpositions, and for a short word every string one edit away, which
// are few enough (some 300 for three characters) to be looked up as they are.

/** The characters a normalized word is made of. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The word with one pair of adjacent, different characters swapped, each way it can be. */
export function adjacentSwaps(word: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i + 1 < word.length; i++)
    if (word[i] !== word[i + 1]) out.add(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
  return [...out];
}

/** Every other string one edit (insertion, deletion, substitution, adjacent transposition) from the word. */
export function oneEditAway(word: string): string[] {
  const out = new Set<string>(adjacentSwaps(word));
  for (let i = 0; i <= word.length; i++) {
    if (i < word.length) out.add(word.slice(0, i) + word.slice(i + 1));
    for (const c of ALPHABET) {
      out.add(word.slice(0, i) + c + word.slice(i));
      if (i < word.length) out.add(word.slice(0, i) + c + word.slice(i + 1));
    }
  }
  out.delete(word);
  out.delete('');
  return [...out];
}
