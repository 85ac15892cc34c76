// How a customer's CRM holds a registered name (docs/bulk-files.md, "Match rows"): a word written short or
// long, THE added or dropped, the legal form dropped or another, two words swapped, typos. Each change is
// a pure function of the name and a random stream; null when the name has nothing it can change.
import type { Rng } from './random.js';
import { nameWord } from './vocabulary.js';

/** Words of fewer letters allow no typo in the search (docs/search.md, "Thresholds"): NO_TYPO_MAX_LENGTH + 1. */
export const TYPO_MIN_LENGTH = 4;
/** A word this long allows two typos in the search (docs/search.md, "Thresholds"): ONE_TYPO_MAX_LENGTH + 1. */
export const TWO_TYPO_MIN_LENGTH = 8;
/** Draws of a replacement word before a negative gives up on a name (the head words repeat often). */
const REPLACEMENT_TRIES = 8;

/** Long and short spellings of the words the generator's vocabulary and suffixes produce. */
const SHORT_FORMS: ReadonlyArray<readonly [string, string]> = [
  ['INTERNATIONAL', 'INTL'],
  ['NATIONAL', 'NATL'],
  ['CORPORATION', 'CORP'],
  ['MANAGEMENT', 'MGMT'],
  ['SERVICES', 'SVCS'],
  ['ASSOCIATES', 'ASSOC'],
  ['ASSOCIATION', 'ASSN'],
  ['BROTHERS', 'BROS'],
  ['CENTER', 'CTR'],
  ['COMPANY', 'CO'],
  ['DEVELOPMENT', 'DEV'],
  ['PROPERTIES', 'PROPS'],
  ['INVESTMENTS', 'INVEST'],
  ['INVESTMENT', 'INVEST'],
  ['ENTERPRISES', 'ENT'],
  ['HOLDINGS', 'HLDGS'],
  ['TECHNOLOGIES', 'TECH'],
  ['TECHNOLOGY', 'TECH'],
  ['GROUP', 'GRP'],
  ['CONSTRUCTION', 'CONST'],
  ['DISTRIBUTORS', 'DIST'],
  ['MARKETING', 'MKTG'],
  ['INSURANCE', 'INS'],
  ['FINANCIAL', 'FIN'],
  ['SYSTEMS', 'SYS'],
  ['ENGINEERING', 'ENGR'],
  ['BUILDERS', 'BLDRS'],
  ['MEDICAL', 'MED'],
  ['FOUNDATION', 'FDN'],
  ['CONDOMINIUM', 'CONDO'],
  ['AND', '&'],
];
const SHORT_OF = new Map(SHORT_FORMS);
/** A short form written long again: the first long word listed for it (TECH is TECHNOLOGIES). */
const LONG_OF = new Map([...SHORT_FORMS].reverse().map(([long, short]) => [short, long]));

/** A legal form at the end of a name, with its comma or space: the longest spelling the generator writes. */
const LEGAL_TAIL =
  /,?\s+(?:LIMITED LIABILITY COMPANY|LIMITED PARTNERSHIP|L\.L\.C\.|P?LLC\.?|LC|INCORPORATED|INC\.?|CORPORATION|CORP\.?|CO\.?|P\.A\.|LTD\.?|L\.P\.|LP|LLLP)$/i;
const LLC_LIKE = /L\.?L\.?C|LC|LIMITED LIABILITY/i;
/** Other legal forms a customer writes: an LLC's as a corporation's and the others as an LLC's. */
const AS_CORPORATION = [' INC', ', INC.', ' CORP'];
const AS_LLC = [' LLC', ', LLC'];
/** Words that never tell names apart, legal forms inside a name among them (docs/search.md, "What a query
 * means"): not swapped, mistyped or replaced. */
const WEAK = new Set(
  'THE AND & OF AT FOR LLC LC PLLC INC INCORPORATED CORP CORPORATION CO COMPANY LTD LIMITED PA'.split(' '),
);
const isWeak = (word: string): boolean => WEAK.has(word.toUpperCase().replaceAll('.', ''));
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A name cut into its stem's words (each with the punctuation after it) and its legal form, kept as written. */
interface Parts {
  words: Array<{ word: string; trail: string }>;
  legal: string;
}

function parts(name: string): Parts {
  const tail = LEGAL_TAIL.exec(name);
  const stem = tail ? name.slice(0, tail.index) : name;
  const words = stem
    .split(' ')
    .filter((w) => w !== '')
    .map((w) => {
      const m = /^(.*?)([.,]*)$/.exec(w)!;
      return { word: m[1]!, trail: m[2]! };
    });
  return { words, legal: tail ? tail[0] : '' };
}

const join = (p: Parts): string => p.words.map((w) => w.word + w.trail).join(' ') + p.legal;

/** Positions of the stem's words that tell names apart, of at least `min` letters and nothing else. */
function strongWords(p: Parts, min: number): number[] {
  return p.words.flatMap(({ word }, k) => (!isWeak(word) && word.length >= min && /^[A-Za-z]+$/.test(word) ? [k] : []));
}

/** One word written short or long (INTERNATIONAL as INTL, & as AND and back), the legal form included. */
export function abbreviate(rng: Rng, name: string): string | null {
  const words = name.split(' ');
  const spots = words.flatMap((w, k) => {
    const bare = w.replace(/[.,]+$/, '').toUpperCase();
    const short = SHORT_OF.get(bare);
    const long = LONG_OF.get(bare);
    // A short form's own period goes when it is written long (CO. as COMPANY); a comma stays.
    const trail = w.slice(bare.length);
    if (short) return [{ k, other: short + trail }];
    return long ? [{ k, other: long + trail.replace('.', '') }] : [];
  });
  if (spots.length === 0) return null;
  const spot = rng.pick(spots);
  words[spot.k] = spot.other;
  return words.join(' ');
}

/** THE dropped from the front of a name, or added to one without it. */
export function toggleThe(name: string): string {
  return /^THE\s/i.test(name) ? name.slice(4) : `THE ${name}`;
}

/** The legal form dropped, or written as another (LLC as INC); null for a name without one. */
export function changeLegalForm(rng: Rng, name: string): string | null {
  const p = parts(name);
  if (p.legal === '' || p.words.length === 0) return null;
  const stem = join({ ...p, legal: '' }).replace(/,$/, '');
  if (rng.chance(0.5)) return stem;
  return stem + rng.pick(LLC_LIKE.test(p.legal) ? AS_CORPORATION : AS_LLC);
}

/** Two different words of the stem swapped; null when it has fewer than two. */
export function swapWords(rng: Rng, name: string): string | null {
  const p = parts(name);
  const spots = p.words.flatMap(({ word }, k) => (isWeak(word) ? [] : [k]));
  if (spots.length < 2) return null;
  const a = rng.int(spots.length);
  const b = (a + 1 + rng.int(spots.length - 1)) % spots.length;
  const [i, j] = [spots[a]!, spots[b]!];
  if (p.words[i]!.word === p.words[j]!.word) return null;
  [p.words[i]!.word, p.words[j]!.word] = [p.words[j]!.word, p.words[i]!.word];
  return join(p);
}

/** One edit of a word: a letter replaced, dropped, added, or two neighbours swapped; never the same word. */
function typo(rng: Rng, word: string): string {
  for (;;) {
    const at = rng.int(word.length);
    let out: string;
    switch (rng.int(4)) {
      case 0:
        out = word.slice(0, at) + rng.pick([...LETTERS]) + word.slice(at + 1);
        break;
      case 1:
        out = word.slice(0, at) + word.slice(at + 1);
        break;
      case 2:
        out = word.slice(0, at) + rng.pick([...LETTERS]) + word.slice(at);
        break;
      default:
        out = at + 1 < word.length ? word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2) : word;
    }
    if (out.toUpperCase() !== word.toUpperCase()) return out;
  }
}

/** `edits` typos in the stem's words long enough to allow one each, or two in one word long enough for two. */
export function misspell(rng: Rng, name: string, edits: 1 | 2): string | null {
  const p = parts(name);
  const spots = strongWords(p, TYPO_MIN_LENGTH);
  if (edits === 1 || spots.length >= 2) {
    if (spots.length < edits) return null;
    const first = rng.int(spots.length);
    const chosen = edits === 1 ? [spots[first]!] : [spots[first]!, spots[(first + 1) % spots.length]!];
    for (const k of chosen) p.words[k]!.word = typo(rng, p.words[k]!.word);
    return join(p);
  }
  const long = strongWords(p, TWO_TYPO_MIN_LENGTH);
  if (long.length === 0) return null;
  const w = p.words[long[0]!]!;
  w.word = typo(rng, typo(rng, w.word));
  return join(p);
}

/** A name that resembles this one: its first distinctive word replaced by another of the vocabulary's words. */
export function replaceWord(rng: Rng, name: string): string | null {
  const p = parts(name);
  const k = strongWords(p, 3)[0];
  if (k === undefined) return null;
  const taken = new Set(p.words.map((w) => w.word.toUpperCase()));
  for (let tries = 0; tries < REPLACEMENT_TRIES; tries++) {
    const other = nameWord(rng);
    if (!taken.has(other)) {
      p.words[k]!.word = other;
      return join(p);
    }
  }
  return null;
}
