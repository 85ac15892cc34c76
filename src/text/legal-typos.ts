// A legal-form word mistyped (COTPORATION, LIITED LIABIITY) is still a legal form: read as typed it is a
// word no name holds, and the query answers nothing (docs/search.md, "What a query means").
import { editDistance } from './edit-distance.js';
import { normalizeText } from './normalize.js';

/** The long words legal forms are spelled with (normalization folds them to LLC, INC, CORP...). */
const LEGAL_LONG_WORDS = [
  'INCORPORATED',
  'CORPORATION',
  'COMPANY',
  'LIMITED',
  'LIABILITY',
  'PARTNERSHIP',
  'PROFESSIONAL',
  'ASSOCIATION',
] as const;

/** A word this short is never taken for a mistyped legal word (CAMPY is not COMPANY). */
const LEGAL_TYPO_MIN_LENGTH = 6;
/** Legal words up to this length take one edit, longer ones two: as the search allows a name word. */
const LEGAL_ONE_EDIT_MAX_LENGTH = 8;

const editsFor = (legal: string): number => (legal.length <= LEGAL_ONE_EDIT_MAX_LENGTH ? 1 : 2);

/**
 * The name with each word that is a typo of a legal long word written as that word, or null when none is;
 * `registered` words are left as typed (COOPERATION is a word of names, not a mistyped CORPORATION).
 */
export function correctLegalTypos(input: string, registered: (word: string) => boolean = () => false): string | null {
  let changed = false;
  const words = normalizeText(input)
    .split(' ')
    .map((w) => {
      if (w.length < LEGAL_TYPO_MIN_LENGTH || registered(w)) return w;
      const legal = LEGAL_LONG_WORDS.find((l) => l !== w && editDistance(w, l, editsFor(l)) <= editsFor(l));
      if (!legal || (LEGAL_LONG_WORDS as readonly string[]).includes(w)) return w;
      changed = true;
      return legal;
    });
  return changed ? words.join(' ') : null;
}
