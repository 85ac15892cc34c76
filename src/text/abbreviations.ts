// Words as customers write them short and as the registry writes them long, or the other way round
// (docs/matching.md, "Names as customers write them"). Both the search (a query word also matches its
// other forms) and the matcher (words compared in one canonical form) read this one table.

/** Each line: the long form, then the short forms customers use for it. Normalized words (upper case). */
const FORMS: ReadonlyArray<readonly [string, ...string[]]> = [
  ['INTERNATIONAL', 'INTL', 'INTERNATL'],
  ['MANAGEMENT', 'MGMT', 'MGT', 'MNGMT'],
  ['SERVICES', 'SVCS', 'SERVS', 'SRVCS'],
  ['SERVICE', 'SVC', 'SERV'],
  ['ASSOCIATES', 'ASSOC', 'ASSOCS', 'ASSOCIATE'],
  ['ASSOCIATION', 'ASSN'],
  ['BROTHERS', 'BROS'],
  ['CENTER', 'CTR', 'CENTRE'],
  ['DEVELOPMENT', 'DEV', 'DEVEL'],
  ['PROPERTIES', 'PROPS', 'PPTYS'],
  ['PROPERTY', 'PROP', 'PPTY'],
  ['INVESTMENTS', 'INVTS', 'INVEST'],
  ['INVESTMENT', 'INVEST'],
  ['ENTERPRISES', 'ENT', 'ENTPRS', 'ENTERPRISE'],
  ['HOLDINGS', 'HLDGS', 'HOLDING'],
  ['TECHNOLOGY', 'TECH'],
  ['TECHNOLOGIES', 'TECH', 'TECHS'],
  ['GROUP', 'GRP'],
  ['INDUSTRIES', 'INDS', 'IND'],
  ['MANUFACTURING', 'MFG'],
  ['CONSTRUCTION', 'CONSTR', 'CONST'],
  ['CONSULTING', 'CONSULT'],
  ['DISTRIBUTION', 'DIST', 'DISTR'],
  ['DISTRIBUTORS', 'DIST', 'DISTRIBS'],
  ['FOUNDATION', 'FDN', 'FNDN'],
  ['ENGINEERING', 'ENGR', 'ENG'],
  ['BUILDERS', 'BLDRS'],
  ['CONDOMINIUM', 'CONDO'],
  ['EQUIPMENT', 'EQUIP'],
  ['FINANCIAL', 'FIN'],
  ['INSURANCE', 'INS'],
  ['LABORATORIES', 'LABS'],
  ['LABORATORY', 'LAB'],
  ['MEDICAL', 'MED'],
  ['MARKETING', 'MKTG'],
  ['NATIONAL', 'NATL'],
  ['AMERICAN', 'AMER'],
  ['AMERICA', 'AMER'],
  ['SYSTEMS', 'SYS'],
  ['SOLUTIONS', 'SOLNS'],
  ['TRANSPORTATION', 'TRANS', 'TRANSP'],
  ['COMMUNICATIONS', 'COMMS', 'COMM'],
  ['PRODUCTS', 'PRODS'],
  ['PARTNERS', 'PTNRS'],
  ['REALTY', 'RLTY'],
  ['SAINT', 'ST'],
  ['MOUNT', 'MT'],
  ['FORT', 'FT'],
  ['FLORIDA', 'FLA', 'FL'],
];

/** Every other form of each word, keyed by each of them. */
const OTHERS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const words of FORMS) {
    for (const w of words) {
      const set = map.get(w) ?? new Set<string>();
      for (const o of words) if (o !== w) set.add(o);
      map.set(w, set);
    }
  }
  return new Map([...map].map(([w, set]) => [w, [...set].sort()]));
})();

/** The word's other forms (INTL: INTERNATIONAL, INTERNATL); none for most words. */
export const otherForms = (word: string): readonly string[] => OTHERS.get(word) ?? [];

/** One canonical form per word (the long form of the first line naming it), so two spellings compare equal. */
const CANONICAL: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [long, ...short] of FORMS) {
    for (const w of [long, ...short]) if (!map.has(w)) map.set(w, long);
  }
  return map;
})();

/** The word in its canonical form (MGMT: MANAGEMENT); itself for most words. */
export const canonicalWord = (word: string): string => CANONICAL.get(word) ?? word;
