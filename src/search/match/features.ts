// Each feature of a query graded against a candidate (docs/matching.md, "Features"): exact, close,
// different, or absent when the query or the entity does not have it. The name's grade carries its
// similarity, which the score uses as it is.
import { canonicalWord } from '../../text/abbreviations.js';
import { editDistance } from '../../text/edit-distance.js';
import { addressKey, normalizeText, personKey } from '../../text/normalize.js';
import type { CandidateRecord } from './candidates.js';
import { nameParts, nameSimilarity, type NameParts } from './name-similarity.js';
import type { Grade, MatchFeature, MatchQuery } from './shapes.js';

/** A name this alike is close (a typo, an abbreviation, a word more or less in a long name). */
const NAME_CLOSE_FROM = 0.75;
/** A city one typo away is close (ST PETERSBURG, ST PETERSBERG). */
const CITY_TYPOS = 1;
/** ZIPs sharing their first three digits (one sectional center) are close. */
const ZIP_CLOSE_PREFIX = 3;

/** Legal forms of one kind: another of the kind is close (an LLC written PLLC), of another kind different. */
const LEGAL_FAMILIES: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['LLC', 'PLLC']),
  new Set(['INC', 'CORP', 'CO', 'PC', 'PA', 'LTD']),
  new Set(['LP', 'LLP', 'LLLP']),
];

export interface Graded {
  readonly grade: Grade;
  /** How much of the feature's weight it earns, from 0 to 1. */
  readonly value: number;
  /** Whether its weight counts in the score's whole (not when the query does not have the feature). */
  readonly counted: boolean;
}

/** The query does not have the feature: it counts neither way. */
const ABSENT: Graded = { grade: 'absent', value: 0, counted: false };
/** The query has it, the entity not: counted, at half its weight (UNKNOWN_VALUE). */
const UNKNOWN: Graded = { grade: 'absent', value: 0.5, counted: true };
const EXACT: Graded = { grade: 'exact', value: 1, counted: true };
const DIFFERENT: Graded = { grade: 'different', value: 0, counted: true };
const close = (value: number): Graded => ({ grade: 'close', value, counted: true });

/** A query read once for all its candidates. */
export interface PreparedQuery {
  readonly name: NameParts;
  readonly city: string | null;
  readonly zip: string | null;
  readonly street: string | null;
  readonly officer: string | null;
}

export function prepareQuery(q: MatchQuery): PreparedQuery {
  const text = (s: string | undefined): string | null => (s ? normalizeText(s) || null : null);
  return {
    name: nameParts(q.name),
    city: text(q.city)?.split(' ').map(canonicalWord).join(' ') ?? null,
    zip: q.zip ? (q.zip.match(/^\d{5}/)?.[0] ?? null) : null,
    street: q.address ? addressKey(q.address).norm || null : null,
    officer: q.officer ? personKey(q.officer).sorted || null : null,
  };
}

/**
 * The best of a feature's grades over an entity's values (its principal and mailing addresses, officers); an
 * entity without any is graded absent, though the query has the feature: unknown, half for and half against.
 */
function best(values: readonly string[], grade: (v: string) => Graded): Graded {
  let top: Graded = UNKNOWN;
  for (const v of values) {
    const g = grade(v);
    if (top === UNKNOWN || g.value > top.value) top = g;
  }
  return top;
}

function legalFormGrade(q: string | null, e: string | null): Graded {
  if (!q) return ABSENT;
  if (!e) return UNKNOWN;
  if (q === e) return EXACT;
  return LEGAL_FAMILIES.some((f) => f.has(q) && f.has(e)) ? close(0.5) : DIFFERENT;
}

function cityGrade(q: string, e: string): Graded {
  const city = normalizeText(e).split(' ').map(canonicalWord).join(' ');
  if (city === q) return EXACT;
  return editDistance(city, q, CITY_TYPOS) <= CITY_TYPOS ? close(0.7) : DIFFERENT;
}

function zipGrade(q: string, e: string): Graded {
  if (e === q) return EXACT;
  return e.slice(0, ZIP_CLOSE_PREFIX) === q.slice(0, ZIP_CLOSE_PREFIX) ? close(0.5) : DIFFERENT;
}

/** The same street line; close: the same house number and most of the words. */
function streetGrade(q: string, e: string): Graded {
  const street = addressKey(e).norm;
  if (street === q) return EXACT;
  const qw = q.split(' ');
  const ew = new Set(street.split(' '));
  const shared = qw.filter((w) => ew.has(w)).length;
  return qw[0] === street.split(' ')[0] && 2 * shared >= qw.length ? close(0.7) : DIFFERENT;
}

/** Generational and professional suffixes, which one side often leaves out (SCHIMMEL, WELDON JR). */
const NAME_SUFFIXES = new Set(['JR', 'SR', 'II', 'III', 'IV', 'V', 'MD', 'DO', 'DDS', 'PHD', 'ESQ', 'CPA', 'PA', 'RN']);

/** A person's name as words of two letters or more, suffixes aside, in a fixed order, and its initials. */
function personWords(sorted: string): { words: string; initials: string[] } {
  const all = sorted.split(' ').filter((w) => !NAME_SUFFIXES.has(w));
  return { words: all.filter((w) => w.length > 1).join(' '), initials: all.filter((w) => w.length === 1) };
}

/**
 * The same words in any order, a middle initial only one side gives aside (LINDA HUDSON is HUDSON, LINDA P);
 * close: one typo in all, or initials that differ.
 */
function officerGrade(q: string, e: string): Graded {
  const name = personWords(personKey(e).sorted);
  const asked = personWords(q);
  if (asked.words === '' || editDistance(name.words, asked.words, 1) > 1) return DIFFERENT;
  if (name.words !== asked.words) return close(0.7);
  const agree = asked.initials.every((i) => name.initials.length === 0 || name.initials.includes(i));
  return agree ? EXACT : close(0.7);
}

export function gradeFeatures(q: PreparedQuery, e: CandidateRecord): Record<MatchFeature, Graded> {
  const entity = nameParts(e.entity_name);
  const similarity = nameSimilarity(q.name, entity);
  const name: Graded =
    similarity === 1
      ? EXACT
      : { grade: similarity >= NAME_CLOSE_FROM ? 'close' : 'different', value: similarity, counted: true };
  return {
    name,
    legal_form: legalFormGrade(q.name.legalForm, entity.legalForm),
    address: q.street ? best(e.streets, (v) => streetGrade(q.street!, v)) : ABSENT,
    city: q.city ? best(e.cities, (v) => cityGrade(q.city!, v)) : ABSENT,
    zip: q.zip ? best(e.zips, (v) => zipGrade(q.zip!, v)) : ABSENT,
    officer: q.officer ? best(e.officers, (v) => officerGrade(q.officer!, v)) : ABSENT,
  };
}
