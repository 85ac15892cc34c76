// The bench's seeded typo model: one edit of any kind (insertion, deletion, substitution, adjacent
// transposition) at any position of any word, short words, numbers and the legal form included, as
// docs/search.md's "What a query means" promises to forgive. Letters stay letters and digits digits.
import type { Rng } from '../src/sample/random.js';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';

export type EditKind = 'insertion' | 'deletion' | 'substitution' | 'transposition';
const EDIT_KINDS: readonly EditKind[] = ['insertion', 'deletion', 'substitution', 'transposition'];

/** A character of the same class as `like` (a digit for a digit), other than `not`. */
function another(r: Rng, like: string, not = ''): string {
  const pool = DIGITS.includes(like) ? DIGITS : LETTERS;
  for (;;) {
    const c = pool[r.int(pool.length)]!;
    if (c !== not) return c;
  }
}

/** One edit of the kind drawn, at a drawn place, or null when the word cannot take it (a one-letter deletion). */
export function editWord(word: string, r: Rng, kind: EditKind = EDIT_KINDS[r.int(EDIT_KINDS.length)]!): string | null {
  const n = word.length;
  if (n === 0) return null;
  switch (kind) {
    case 'insertion': {
      const at = r.int(n + 1);
      return word.slice(0, at) + another(r, word[Math.min(at, n - 1)]!) + word.slice(at);
    }
    case 'deletion': {
      if (n < 2) return null;
      const at = r.int(n);
      return word.slice(0, at) + word.slice(at + 1);
    }
    case 'substitution': {
      const at = r.int(n);
      return word.slice(0, at) + another(r, word[at]!, word[at]) + word.slice(at + 1);
    }
    case 'transposition': {
      // Only pairs of two different characters: swapping AA changes nothing.
      const pairs = [...Array(Math.max(0, n - 1)).keys()].filter((i) => word[i] !== word[i + 1]);
      if (pairs.length === 0) return null;
      const at = pairs[r.int(pairs.length)]!;
      return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
    }
  }
}

/**
 * `edits` edits in distinct words of the text (each word drawn alike, whatever its length, among those `editable`
 * admits: by default every one), or null when the text has too few words that can take one.
 */
export function misspell(
  text: string,
  r: Rng,
  edits = 1,
  editable: (word: string, at: number) => boolean = () => true,
): string | null {
  const words = text.split(' ').filter((w) => w !== '');
  const places = [...words.keys()].filter((at) => editable(words[at]!, at));
  let done = 0;
  while (done < edits && places.length > 0) {
    const at = places.splice(r.int(places.length), 1)[0]!;
    // A few draws: a one-letter word cannot lose its letter, and AA cannot be transposed.
    for (let tries = 0; tries < 4; tries++) {
      const changed = editWord(words[at]!, r);
      if (changed !== null && changed !== words[at]) {
        words[at] = changed;
        done++;
        break;
      }
    }
  }
  return done === edits ? words.join(' ') : null;
}
