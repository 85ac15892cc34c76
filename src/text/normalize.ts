// Name and address normalization, shared by the importer (what is indexed) and the search (what is
// asked), so that both sides always agree: case, accents and punctuation are ignored, legal suffixes
// are spelled one way, and the weak words (legal suffixes, THE/AND/OF) are kept apart from the words
// that must match.

/** Multi-word legal forms, longest first, rewritten to their short form. */
const LEGAL_PHRASES: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bPROFESSIONAL LIMITED LIABILITY COMPANY\b/g, 'PLLC'],
  [/\bLIMITED LIABILITY LIMITED PARTNERSHIP\b/g, 'LLLP'],
  [/\bLIMITED LIABILITY PARTNERSHIP\b/g, 'LLP'],
  [/\bLIMITED LIABILITY COMPANY\b/g, 'LLC'],
  [/\bLIMITED LIABILITY CO\b/g, 'LLC'],
  [/\bLIMITED PARTNERSHIP\b/g, 'LP'],
  [/\bPROFESSIONAL ASSOCIATION\b/g, 'PA'],
  [/\bPROFESSIONAL CORPORATION\b/g, 'PC'],
  // Spaced initials: "L L C", "P A", "L P".
  [/\bP L L C\b/g, 'PLLC'],
  [/\bL L L P\b/g, 'LLLP'],
  [/\bL L C\b/g, 'LLC'],
  [/\bL L P\b/g, 'LLP'],
  [/\bL P\b/g, 'LP'],
  [/\bP A\b/g, 'PA'],
  [/\bP L\b/g, 'PL'],
];

// Maps, not objects: looking a word up in an object first interns it (with the address words' Map,
// about 1.2 µs less a corporate record in a load).
const LEGAL_WORDS: ReadonlyMap<string, string> = new Map([
  ['INCORPORATED', 'INC'],
  ['CORPORATION', 'CORP'],
  ['COMPANY', 'CO'],
  ['LIMITED', 'LTD'],
]);

/** Legal forms as normalized names spell them. */
export const LEGAL_FORMS = new Set(['LLC', 'INC', 'CORP', 'CO', 'LTD', 'PA', 'PL', 'LP', 'LLP', 'LLLP', 'PLLC', 'PC']);

/** Words that never decide a match: legal forms and the commonest function words. */
const WEAK_WORDS = new Set([...LEGAL_FORMS, 'THE', 'AND', 'OF']);

/** Whether a normalized word is a weak word (a legal form, THE, AND, OF). */
export const isWeakWord = (word: string): boolean => WEAK_WORDS.has(word);

/** The legal form a normalized name ends with (`LLC` of `ACME HOLDINGS LLC`), if any. */
export function legalForm(norm: string): string | null {
  const last = norm.slice(norm.lastIndexOf(' ') + 1);
  return last !== norm && LEGAL_FORMS.has(last) ? last : null;
}

/**
 * Upper case, accents stripped, `&` read as AND, apostrophes and periods dropped inside words
 * (`L.L.C.` is `LLC`, `O'Brien` is `OBRIEN`), every other symbol a word break, single spaces.
 */
export function normalizeText(input: string): string {
  // Accents: decompose and drop the marks (only text beyond ASCII has any).
  const s = /[^\x00-\x7f]/.test(input) ? input.normalize('NFKD').replace(/\p{M}+/gu, '') : input;
  let out = '';
  let gap = false;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) c -= 32; // a-z
    if ((c >= 65 && c <= 90) || (c >= 48 && c <= 57)) {
      if (gap && out !== '') out += ' ';
      gap = false;
      out += String.fromCharCode(c);
    } else if (c === 38) {
      // & reads as AND, a word of its own
      out += out === '' ? 'AND' : ' AND';
      gap = true;
    } else if (c === 39 || c === 46 || c === 96 || c === 0x2019) {
      // apostrophes and periods join (L.L.C., O'Brien)
    } else if (c >= 128 && /^[A-Z0-9]+$/.test(String.fromCharCode(c).toUpperCase())) {
      // a letter that upper-cases to ASCII (ß is SS)
      if (gap && out !== '') out += ' ';
      gap = false;
      out += String.fromCharCode(c).toUpperCase();
    } else {
      gap = true;
    }
  }
  return out;
}

/** Whether a normalized text may hold one of LEGAL_PHRASES (most names hold none). */
const MAY_HOLD_PHRASE = /\b(?:LIMITED|PROFESSIONAL|[LP] [ACLP])\b/;

/** A normalized name: legal forms canonical (`INCORPORATED` is `INC`, `L L C` is `LLC`). */
function normalizeName(input: string): string {
  let s = normalizeText(input);
  if (MAY_HOLD_PHRASE.test(s)) for (const [pattern, short] of LEGAL_PHRASES) s = s.replace(pattern, short);
  return s
    .split(' ')
    .map((w) => LEGAL_WORDS.get(w) ?? w)
    .join(' ');
}

export interface NameKey {
  /** The whole normalized name, legal form included. */
  readonly norm: string;
  /** The normalized name without weak words: what exact and prefix matching compare. */
  readonly core: string;
  /** The distinct words of `core`: what word matching needs to find. */
  readonly words: string[];
}

export function nameKey(input: string): NameKey {
  const norm = normalizeName(input);
  const coreWords = norm.split(' ').filter((w) => w !== '' && !WEAK_WORDS.has(w));
  // A name made only of weak words ("THE CO") keeps them, so it stays findable.
  const kept = coreWords.length > 0 ? coreWords : norm.split(' ').filter((w) => w !== '');
  return { norm, core: kept.join(' '), words: [...new Set(kept)] };
}

/** The words of a person's name in a fixed order, so either word order gives the same key. */
export function sortedWords(words: readonly string[]): string {
  return [...words].sort().join(' ');
}

/** USPS standard abbreviations, so `123 Main Street` and `123 MAIN ST` are the same address. */
const ADDRESS_WORDS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    STREET: 'ST',
    AVENUE: 'AVE',
    AV: 'AVE',
    BOULEVARD: 'BLVD',
    ROAD: 'RD',
    DRIVE: 'DR',
    LANE: 'LN',
    COURT: 'CT',
    PLACE: 'PL',
    TERRACE: 'TER',
    CIRCLE: 'CIR',
    HIGHWAY: 'HWY',
    PARKWAY: 'PKWY',
    TRAIL: 'TRL',
    SQUARE: 'SQ',
    SUITE: 'STE',
    APARTMENT: 'APT',
    BUILDING: 'BLDG',
    FLOOR: 'FL',
    NORTH: 'N',
    SOUTH: 'S',
    EAST: 'E',
    WEST: 'W',
    NORTHEAST: 'NE',
    NORTHWEST: 'NW',
    SOUTHEAST: 'SE',
    SOUTHWEST: 'SW',
  }),
);

/** The words of a street's type, direction and unit (ST, NE, APT) once abbreviated, and WAY and UNIT. */
const STREET_WORDS: ReadonlySet<string> = new Set([...ADDRESS_WORDS.values(), 'WAY', 'UNIT']);

export const isStreetWord = (word: string): boolean => STREET_WORDS.has(word);

/** An address's normalized form: the text rules plus USPS abbreviations, without legal-form rewriting. */
export function addressKey(input: string): { norm: string; words: string[] } {
  const words = normalizeText(input)
    .split(' ')
    .map((w) => ADDRESS_WORDS.get(w) ?? w);
  const norm = words.join(' ');
  // One word split from an empty text is the empty one.
  return { norm, words: norm === '' ? [] : [...new Set(words)] };
}

/** A person's name: the text rules only (no legal forms), its words in any order. */
export function personKey(input: string): { norm: string; sorted: string; words: string[] } {
  const norm = normalizeText(input);
  const all = norm.split(' ').filter((w) => w !== '');
  return { norm, sorted: sortedWords(all), words: [...new Set(all)] };
}

/** A normalized character as one of 37 symbols (0 is the blank padding). */
const trigramSymbol = (c: number): number => (c === 32 ? 0 : c <= 57 ? c - 47 : c - 54);

/** Trigrams met in the current count are marked with its stamp (one integer per possible trigram). */
const trigramSeen = new Uint32Array(37 * 37 * 37);
let trigramStamp = 0;

/**
 * The number of distinct trigrams pg_trgm extracts from a normalized text (words of [A-Z0-9],
 * each padded as "  word "): |T(name)|, which bounds trigram similarity from above
 * (similarity <= min(|T(q)|, |T(name)|) / max(|T(q)|, |T(name)|)). The importer stores it for every
 * name and address; a test holds it to show_trgm() over a whole import.
 */
export function trigramCount(normalized: string): number {
  // Each trigram as one integer (37 symbols: space, digits, letters), marked seen without a Set:
  // the importer counts three texts a record.
  if (++trigramStamp === 0xffffffff) {
    trigramSeen.fill(0);
    trigramStamp = 1;
  }
  let n = 0;
  let a = 0;
  let b = 0;
  for (let i = 0; i <= normalized.length; i++) {
    const c = i < normalized.length ? normalized.charCodeAt(i) : 32;
    let t: number;
    if (c === 32) {
      // a word's end: its last trigram is "xy ", then the next word starts over with "  "
      if (b === 0) continue;
      t = a * 1369 + b * 37;
      a = 0;
      b = 0;
    } else {
      const x = trigramSymbol(c);
      t = a * 1369 + b * 37 + x;
      a = b;
      b = x;
    }
    if (trigramSeen[t] !== trigramStamp) {
      trigramSeen[t] = trigramStamp;
      n++;
    }
  }
  return n;
}
