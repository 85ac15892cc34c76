// How alike a query's name and an entity's name are, from 0 to 1 (docs/matching.md, "Features"): both as
// normalized words without their weak words (legal forms, THE, AND, OF), a word the same as its short or long
// forms (MGMT is MANAGEMENT), paired word with word, a typo or an unknown shortening costing part of a word.
import { otherForms } from '../../text/abbreviations.js';
import { editDistance } from '../../text/edit-distance.js';
import { isWeakWord, legalForm, nameKey } from '../../text/normalize.js';

/** The same words in another order: alike, but maybe another entity (BLUE OCEAN is not OCEAN BLUE). */
const REORDERED = 0.9;
/** A name not the same word for word scores at most this: an exact namesake stays a margin above it. */
const INEXACT_MAX = 0.95;
/** A word shortened in a way the table does not know (SUNSH for SUNSHINE): most of a word. */
const PREFIX_WORD = 0.8;
/** The shortest start of a word read as that word shortened. */
const PREFIX_MIN_LENGTH = 3;
/** Typos per word length: one up to this length, two beyond (as the search allows). */
const ONE_TYPO_MAX_LENGTH = 7;
/** The shortest word a typo is forgiven in (KES for KEYS): two letters differ from most words by one. */
const TYPO_MIN_LENGTH = 3;

export interface NameParts {
  /** Words without weak words, in order. */
  readonly words: string[];
  /** The legal form it ends with (LLC), if any. */
  readonly legalForm: string | null;
}

export function nameParts(name: string): NameParts {
  const key = nameKey(name);
  const words = key.norm.split(' ').filter((w) => w !== '' && !isWeakWord(w));
  return { words: words.length > 0 ? words : key.core.split(' '), legalForm: legalForm(key.norm) };
}

/** The same word, or one of its short or long forms (MGMT, MANAGEMENT). */
const sameWord = (a: string, b: string): boolean => a === b || otherForms(a).includes(b);

/** Each of `a` paired with a word of `b` it is the same as, each used once (both of one length). */
function sameWords(a: readonly string[], b: readonly string[]): boolean {
  const left = [...b];
  return (
    a.length === b.length &&
    a.every((w) => {
      const at = left.findIndex((v) => sameWord(w, v));
      return at >= 0 && left.splice(at, 1).length === 1;
    })
  );
}

/** How alike two words are: 1 the same, less for a typo or a shortening, 0 otherwise. */
function wordSimilarity(a: string, b: string): number {
  if (sameWord(a, b)) return 1;
  const shorter = a.length <= b.length ? a : b;
  const longer = shorter === a ? b : a;
  if (shorter.length >= PREFIX_MIN_LENGTH && longer.startsWith(shorter)) return PREFIX_WORD;
  if (shorter.length < TYPO_MIN_LENGTH) return 0;
  const allowed = longer.length <= ONE_TYPO_MAX_LENGTH ? 1 : 2;
  const d = editDistance(a, b, allowed);
  return d <= allowed ? 1 - d / longer.length : 0;
}

/**
 * 1 for the same words in the same order, REORDERED in another; else each query word paired with its most
 * alike entity word (each used once), their similarities added and taken over both names' word counts, at most
 * INEXACT_MAX.
 */
export function nameSimilarity(q: NameParts, e: NameParts): number {
  const a = q.words;
  const b = e.words;
  if (a.length === 0 || b.length === 0) return 0;
  if (a.length === b.length && a.every((w, i) => sameWord(w, b[i]!))) return 1;
  if (sameWords(a, b)) return REORDERED;
  const used = new Set<number>();
  let sum = 0;
  for (const w of a) {
    let best = 0;
    let at = -1;
    b.forEach((v, j) => {
      if (used.has(j)) return;
      const s = wordSimilarity(w, v);
      if (s > best) [best, at] = [s, j];
    });
    if (at >= 0) used.add(at);
    sum += best;
  }
  return Math.min((2 * sum) / (a.length + b.length), INEXACT_MAX);
}
