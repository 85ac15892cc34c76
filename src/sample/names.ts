// People's names (officers, agents) and business names by entity type.
import { streetLine, floridaPlace } from './geography.js';
import { Weighted, type Rng } from './random.js';
import { awkwardText, type Text } from './text.js';
import {
  ACCENTED_SURNAMES,
  ACCENTED_WORDS,
  brandWord,
  firstNameWord,
  lastNameWord,
  nameWord,
  tradeWord,
} from './vocabulary.js';

export interface PersonName {
  readonly last: Text;
  readonly first: Text;
  readonly middle: string;
  readonly suffix: string;
}

const ACCENTED_FIRST = ['JOSÉ', 'MARÍA', 'JESÚS', 'ÁNGEL', 'RAMÓN', 'IVÁN', 'ANDRÉS', 'HÉCTOR', 'SOFÍA', 'MÓNICA'];

const SUFFIX = new Weighted<string>([
  ['', 955],
  ['JR', 25],
  ['SR', 8],
  ['III', 5],
  ['II', 4],
  ['IV', 1],
  ['ESQ', 1],
  ['MD', 1],
]);
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** People whose name keeps its accents (UTF-8 or Windows-1252): a fraction of a percent. */
const ACCENTED_PERSON_RATE = 0.006;

export function personName(rng: Rng): PersonName {
  const spanish = rng.chance(0.3);
  let last = lastNameWord(rng, spanish);
  // Two surnames, the Spanish way, now and then.
  if (spanish && rng.chance(0.2)) last += ` ${lastNameWord(rng, true)}`;
  const first = firstNameWord(rng, spanish);
  const middle = rng.chance(0.4) ? LETTERS[rng.int(26)]! : '';
  const suffix = SUFFIX.pick(rng);
  if (rng.chance(ACCENTED_PERSON_RATE)) {
    const accentedLast = rng.chance(0.7);
    return {
      last: accentedLast ? awkwardText(rng.pick(ACCENTED_SURNAMES), rng) : last,
      first: accentedLast ? first : awkwardText(rng.pick(ACCENTED_FIRST), rng),
      middle,
      suffix,
    };
  }
  return { last, first, middle, suffix };
}

const letter = (rng: Rng): string => LETTERS[rng.int(26)]!;

/** Business kinds that share naming habits. */
export type NameKind = 'llc' | 'corp' | 'nonprofit' | 'partnership' | 'trust';

export function nameKindOf(type: string): NameKind {
  switch (type) {
    case 'FLAL':
    case 'FORL':
    case 'AGENT':
      return 'llc';
    case 'DOMNP':
    case 'FORNP':
    case 'NPREG':
      return 'nonprofit';
    case 'DOMLP':
    case 'FORLP':
      return 'partnership';
    case 'TRUST':
      return 'trust';
    default:
      return 'corp';
  }
}

type Stem = (rng: Rng, lead: string) => string;

// A stem's `lead` is its first word: usually a fresh name word, an accented one for the awkward cases.
const wordTrade: Stem = (rng, lead) => `${lead} ${tradeWord(rng)}`;
const wordWord: Stem = (rng, lead) => `${lead} ${nameWord(rng)}`;
const threeWords: Stem = (rng, lead) => `${lead} ${nameWord(rng)} ${tradeWord(rng)}`;
const oneWord: Stem = (rng) => brandWord(rng);
const surnameTrade: Stem = (rng) => `${lastNameWord(rng)} ${tradeWord(rng)}`;
const surnames: Stem = (rng) => `${lastNameWord(rng)} & ${lastNameWord(rng)}`;
const initials: Stem = (rng) => `${letter(rng)}&${letter(rng)} ${tradeWord(rng)}`;
const letters: Stem = (rng) => `${letter(rng)}${letter(rng)}${letter(rng)} ${tradeWord(rng)}`;
const address: Stem = (rng) => streetLine(rng);
const tradeOfPlace: Stem = (rng, lead) => `${lead} ${tradeWord(rng)} OF ${floridaPlace(rng).city}`;
const fullName: Stem = (rng) => `${firstNameWord(rng)} ${letter(rng)}. ${lastNameWord(rng)}`;
const associates: Stem = (rng) => `${lastNameWord(rng)} & ASSOCIATES`;
/** A very long name, cut by the 192-byte field (the registry truncates them too). */
const longName: Stem = (rng, lead) => {
  let name = `${lead} ${nameWord(rng)}`;
  while (name.length < 200) name += ` ${nameWord(rng)} ${rng.pick(['AND', 'OF', 'FOR', 'THE'])}`;
  return `${name} ASSOCIATION`;
};

const familyPartnership: Stem = (rng) => `${lastNameWord(rng)} FAMILY LIMITED PARTNERSHIP`;
/** Firms named after people: professional associations go by P.A. more often than by INC. */
const PEOPLE_STEMS: ReadonlySet<Stem> = new Set([surnames, associates, fullName]);

const STEMS: Readonly<Record<NameKind, Weighted<Stem>>> = {
  llc: new Weighted<Stem>([
    [wordTrade, 28],
    [wordWord, 18],
    [threeWords, 10],
    [oneWord, 10],
    [surnameTrade, 8],
    [address, 6],
    [initials, 4],
    [letters, 3],
    [tradeOfPlace, 3],
    [surnames, 3],
    [fullName, 2],
    [longName, 0.03],
  ]),
  corp: new Weighted<Stem>([
    [wordTrade, 25],
    [wordWord, 15],
    [threeWords, 10],
    [surnameTrade, 10],
    [oneWord, 8],
    [surnames, 6],
    [fullName, 4],
    [associates, 4],
    [initials, 4],
    [letters, 3],
    [tradeOfPlace, 3],
  ]),
  nonprofit: new Weighted<Stem>([
    [(r) => `THE ${brandWord(r)} FOUNDATION`, 5],
    [(r, lead) => `THE ${lead} ${nameWord(r)} FOUNDATION`, 5],
    [(r) => `THE ${lastNameWord(r)} FAMILY FOUNDATION`, 5],
    [(r, lead) => `${lead} ${nameWord(r)} HOMEOWNERS ASSOCIATION`, 15],
    [
      (r, lead) =>
        `${lead} ${r.pick(['TOWERS', 'POINTE', 'VILLAS', 'PLACE', 'GARDENS', 'ISLES'])} CONDOMINIUM ASSOCIATION`,
      10,
    ],
    [(_r, lead) => `${lead} BAPTIST CHURCH`, 5],
    [(_r, lead) => `${lead} CHURCH OF GOD`, 3],
    [(_r, lead) => `IGLESIA ${lead}`, 2],
    [(_r, lead) => `${lead} FELLOWSHIP CHURCH`, 2],
    [(r, lead) => `${lead} ${nameWord(r)} MINISTRIES`, 6],
    [(r) => `${brandWord(r)} MINISTRIES`, 4],
    [
      (r, lead) =>
        `${lead} ${nameWord(r)} ${r.pick(['ALLIANCE', 'ASSOCIATION', 'SOCIETY', 'CLUB', 'LEAGUE', 'COUNCIL'])}`,
      15,
    ],
    [(r, lead) => `FRIENDS OF THE ${lead} ${nameWord(r)}`, 4],
    [(_r, lead) => `${lead} COMMUNITY DEVELOPMENT CORPORATION`, 3],
    [(r, lead) => `${lead} ${nameWord(r)} CHARTER SCHOOL`, 3],
    [(r, lead) => `${lead} ${nameWord(r)} FOUNDATION`, 10],
    [(r, lead) => `${lead} AT ${nameWord(r)} ${nameWord(r)} PROPERTY OWNERS ASSOCIATION OF ${floridaPlace(r).city}`, 2],
    [longName, 0.05],
  ]),
  partnership: new Weighted<Stem>([
    [familyPartnership, 30],
    [wordWord, 25],
    [wordTrade, 20],
    [(_r, lead) => `${lead} PARTNERS`, 15],
    [surnameTrade, 10],
  ]),
  trust: new Weighted<Stem>([
    [(r) => `${lastNameWord(r)} FAMILY TRUST`, 40],
    [(r, lead) => `${lead} ${nameWord(r)} TRUST`, 30],
    [(_r, lead) => `${lead} REALTY TRUST`, 15],
    [(r) => `THE ${lastNameWord(r)} TRUST`, 15],
  ]),
};

/** Legal suffixes, with their leading comma or space. */
const SUFFIXES: Readonly<Record<NameKind, Weighted<string>>> = {
  llc: new Weighted<string>([
    [' LLC', 46],
    [', LLC', 32],
    [' L.L.C.', 8],
    [', L.L.C.', 4],
    [' LIMITED LIABILITY COMPANY', 3],
    [' LLC.', 2],
    [', LC', 1],
    [' PLLC', 1.5],
    [', PLLC', 1],
  ]),
  corp: new Weighted<string>([
    [', INC.', 40],
    [' INC', 15],
    [' INC.', 12],
    [' INCORPORATED', 4],
    [' CORP', 6],
    [' CORP.', 4],
    [' CORPORATION', 8],
    [', P.A.', 5],
    [' CO.', 2],
    [' CO', 1],
    [', CORP.', 3],
  ]),
  nonprofit: new Weighted<string>([
    [', INC.', 78],
    [' INC', 8],
    [' INC.', 6],
    [' CORPORATION', 2],
    ['', 6],
  ]),
  partnership: new Weighted<string>([
    [', LTD.', 25],
    [' LTD', 10],
    [', L.P.', 20],
    [' LP', 20],
    [', LP', 15],
    [' LIMITED PARTNERSHIP', 5],
    [', LLLP', 5],
  ]),
  trust: new Weighted<string>([['', 1]]),
};

/** Business names with an accented word (UTF-8 or Windows-1252): a fraction of a percent. */
const ACCENTED_NAME_RATE = 0.005;
const MIXED_CASE_RATE = 0.006;

function suffixFor(kind: NameKind, stem: Stem, rng: Rng): string {
  if (stem === familyPartnership) return '';
  if (kind === 'corp' && PEOPLE_STEMS.has(stem) && rng.chance(0.6)) return ', P.A.';
  return SUFFIXES[kind].pick(rng);
}

function mixedCase(s: string): string {
  return s.toLowerCase().replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}

/** A business name for an entity type: uppercase, mostly short, now and then accented or mixed case. */
export function businessName(rng: Rng, type: string): Text {
  const kind = nameKindOf(type);
  const accented = rng.chance(ACCENTED_NAME_RATE);
  const lead = accented ? rng.pick(ACCENTED_WORDS) : nameWord(rng);
  const stem = accented ? wordTrade : STEMS[kind].pick(rng);
  const name = stem(rng, lead) + suffixFor(kind, stem, rng);
  if (accented) return awkwardText(name, rng);
  return rng.chance(MIXED_CASE_RATE) ? mixedCase(name) : name;
}

/** A company that serves as an officer (an LLC's manager, a partnership's general partner). */
export function companyOfficerName(rng: Rng): string {
  return (
    `${nameWord(rng)} ${rng.pick(['HOLDINGS', 'MANAGEMENT', 'CAPITAL', 'GROUP', 'PARTNERS'])}` +
    `${rng.pick([', LLC', ' LLC', ', INC.'])}`
  );
}

/** A small law or accounting firm acting as registered agent. */
export function firmName(rng: Rng): string {
  switch (rng.int(4)) {
    case 0:
      return `${lastNameWord(rng)} & ${lastNameWord(rng)}, P.A.`;
    case 1:
      return `${lastNameWord(rng)} LAW GROUP, PLLC`;
    case 2:
      return `${nameWord(rng)} ACCOUNTING SERVICES INC`;
    default:
      return `${lastNameWord(rng)} ${rng.pick(['TAX SERVICES', 'CPA FIRM', 'LAW FIRM', 'LEGAL SERVICES'])}, LLC`;
  }
}
