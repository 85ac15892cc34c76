// Word lists for business names: a few very common words, many mid-frequency ones, and an endless tail of
// invented words, drawn Zipf-like so a large registry has hundreds of thousands of distinct words.
import { en, es_MX } from '@faker-js/faker';
import { mix32, shuffled, Weighted, Zipf, type Rng } from './random.js';
import { foldAccents } from './text.js';

/** Descriptive words and Florida places, most common first. */
const HEAD_WORDS: readonly string[] = [
  'FLORIDA',
  'SUNSHINE',
  'AMERICAN',
  'GLOBAL',
  'FIRST',
  'PREMIER',
  'ELITE',
  'ROYAL',
  'UNITED',
  'SOUTHERN',
  'COASTAL',
  'GOLDEN',
  'BLUE',
  'MIAMI',
  'GREEN',
  'OCEAN',
  'PALM',
  'TAMPA',
  'BAY',
  'ORLANDO',
  'GULF',
  'ATLANTIC',
  'STAR',
  'SUN',
  'TROPICAL',
  'NATIONAL',
  'INTERNATIONAL',
  'SOUTH',
  'NORTH',
  'NEW',
  'BEST',
  'SMART',
  'PRIME',
  'TOTAL',
  'QUALITY',
  'ALPHA',
  'LIBERTY',
  'EAGLE',
  'LION',
  'DIAMOND',
  'EMPIRE',
  'CORAL',
  'JACKSONVILLE',
  'ISLAND',
  'CITY',
  'HOME',
  'FAMILY',
  'BRIGHT',
  'PURE',
  'VISION',
  'LEGACY',
  'DREAM',
  'PARADISE',
  'MAGIC',
  'SKY',
  'RIVER',
  'LAKE',
  'KEY',
  'NAPLES',
  'SARASOTA',
  'BOCA',
  'BRICKELL',
  'DORAL',
  'HIALEAH',
  'KENDALL',
  'DAYTONA',
  'CLEARWATER',
  'PENSACOLA',
  'TALLAHASSEE',
  'GAINESVILLE',
  'OCALA',
  'LAKELAND',
  'BRANDON',
  'KISSIMMEE',
  'DESTIN',
  'SANIBEL',
  'EVERGLADES',
  'BISCAYNE',
  'SEMINOLE',
  'PELICAN',
  'FLAMINGO',
  'DOLPHIN',
  'MARLIN',
  'GATOR',
  'MANGROVE',
  'CITRUS',
  'ORANGE',
  'SUNCOAST',
  'SPACE COAST',
  'TREASURE COAST',
  'KEYS',
  'WEST',
  'EAST',
  'TRUE',
  'VICTORY',
  'PHOENIX',
  'ATLAS',
  'SUMMIT',
  'PINNACLE',
];

/** What a business does, most common first. */
const TRADE_WORDS: readonly string[] = [
  'HOLDINGS',
  'GROUP',
  'SERVICES',
  'PROPERTIES',
  'INVESTMENTS',
  'ENTERPRISES',
  'MANAGEMENT',
  'CONSULTING',
  'SOLUTIONS',
  'CAPITAL',
  'REALTY',
  'TRUCKING',
  'CONSTRUCTION',
  'TRANSPORT',
  'VENTURES',
  'DEVELOPMENT',
  'PARTNERS',
  'LOGISTICS',
  'MARKETING',
  'HOMES',
  'CLEANING SERVICES',
  'LANDSCAPING',
  'ROOFING',
  'PLUMBING',
  'ELECTRIC',
  'AUTO SALES',
  'AUTO REPAIR',
  'INSURANCE',
  'MEDICAL',
  'HEALTH',
  'DENTAL',
  'THERAPY',
  'FITNESS',
  'BEAUTY',
  'SALON',
  'BARBERSHOP',
  'RESTAURANT',
  'CAFE',
  'CATERING',
  'FOODS',
  'TRADING',
  'IMPORT EXPORT',
  'DISTRIBUTORS',
  'SUPPLY',
  'DESIGN',
  'MEDIA',
  'PRODUCTIONS',
  'STUDIOS',
  'TECHNOLOGIES',
  'SYSTEMS',
  'SOFTWARE',
  'NETWORKS',
  'DIGITAL',
  'INNOVATIONS',
  'ACQUISITIONS',
  'EQUITY',
  'FINANCIAL',
  'LENDING',
  'MORTGAGE',
  'TITLE',
  'LAND',
  'ESTATES',
  'RENTALS',
  'VACATION RENTALS',
  'MARINE',
  'YACHTS',
  'AVIATION',
  'FREIGHT',
  'EXPRESS',
  'MOVERS',
  'POOLS',
  'PAINTING',
  'FLOORING',
  'INTERIORS',
  'REMODELING',
  'BUILDERS',
  'CONTRACTORS',
  'ENGINEERING',
  'STAFFING',
  'EDUCATION',
  'ACADEMY',
  'LEARNING CENTER',
  'HOME CARE',
  'CARE',
  'PHARMACY',
  'WELLNESS',
  'PET CARE',
  'EVENTS',
  'TRAVEL',
  'TOURS',
  'APPAREL',
  'BOUTIQUE',
  'JEWELRY',
  'LAWN CARE',
  'PEST CONTROL',
  'AIR CONDITIONING',
  'HVAC',
  'SECURITY',
  'TOWING',
  'CAR WASH',
  'TIRES',
  'FARMS',
  'NURSERY',
  'GARDENS',
  'INVESTMENT GROUP',
  'REAL ESTATE',
  'HOSPITALITY',
  'CONCRETE',
  'GLASS',
  'WIRELESS',
];

/** Accented words for the awkward cases (all Latin-1 letters, so they also exist as Windows-1252 bytes). */
export const ACCENTED_WORDS: readonly string[] = [
  'PEÑA',
  'CAFÉ',
  'JOSÉ',
  'MUÑOZ',
  'NÚÑEZ',
  'GARCÍA',
  'MARTÍNEZ',
  'LEÓN',
  'MÉXICO',
  'ESPAÑA',
  'NIÑO',
  'SEÑOR',
  'DÍAZ',
  'PÉREZ',
  'RAMÍREZ',
  'ÁNGEL',
  'MARÍA',
  'JESÚS',
  'CRÈME',
  'CORAZÓN',
  'CAÑAVERAL',
  'BAÑOS',
];

const upper = (w: string): string => foldAccents(w).toUpperCase();
const plainWord = (w: string): boolean => /^[a-z]{3,}$/i.test(w);
const lettersAndSpaces = (w: string): boolean => /^[\p{L} ]{2,}$/u.test(w);

function uniqueUpper(...lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat().filter(plainWord).map(upper))];
}

/** A name list: the common names first, in order of frequency, then faker's (accents folded) shuffled. */
function nameList(head: string, lists: readonly (readonly string[] | undefined)[], salt: number): string[] {
  const common = head.split(' ');
  const rest = new Set(
    lists
      .flatMap((l) => l ?? [])
      .filter(lettersAndSpaces)
      .map(upper),
  );
  for (const n of common) rest.delete(n);
  return [...common, ...shuffled([...rest], salt)];
}

const enFirst = en.person!.first_name!;
const esFirst = es_MX.person!.first_name!;
const EN_LAST = nameList(
  'SMITH JOHNSON WILLIAMS BROWN JONES MILLER DAVIS WILSON ANDERSON TAYLOR THOMAS MOORE JACKSON MARTIN LEE ' +
    'THOMPSON WHITE HARRIS CLARK LEWIS ROBINSON WALKER YOUNG ALLEN KING WRIGHT SCOTT HILL GREEN ADAMS BAKER ' +
    'NELSON CARTER MITCHELL ROBERTS TURNER PHILLIPS CAMPBELL PARKER EVANS EDWARDS COLLINS STEWART MORRIS MURPHY ' +
    'COOK ROGERS',
  [en.person!.last_name!.generic],
  11,
);
const ES_LAST = nameList(
  'GARCIA RODRIGUEZ MARTINEZ HERNANDEZ LOPEZ GONZALEZ PEREZ SANCHEZ RAMIREZ TORRES DIAZ CRUZ MORALES REYES GOMEZ ' +
    'FERNANDEZ ALVAREZ RUIZ JIMENEZ MENDOZA CASTILLO VASQUEZ ROMERO HERRERA MEDINA SUAREZ GUTIERREZ RIVERA ORTIZ ' +
    'DELGADO VARGAS CASTRO RAMOS SANTOS',
  [es_MX.person!.last_name!.generic],
  12,
);
const EN_FIRST = nameList(
  'MICHAEL JAMES JOHN ROBERT DAVID WILLIAM RICHARD JOSEPH THOMAS CHRISTOPHER MARY JENNIFER LINDA PATRICIA ' +
    'ELIZABETH SUSAN JESSICA SARAH KAREN NANCY DANIEL MATTHEW ANTHONY MARK STEVEN PAUL ANDREW JOSHUA KEVIN BRIAN ' +
    'LISA MICHELLE AMANDA MELISSA STEPHANIE',
  [enFirst.generic, enFirst.female, enFirst.male],
  13,
);
const ES_FIRST = nameList(
  'JOSE MARIA JUAN CARLOS LUIS JORGE MIGUEL ANA CARMEN ROSA FRANCISCO ANTONIO MANUEL PEDRO ALEJANDRO DANIEL ' +
    'YOLANDA LAURA ELENA GLORIA RAFAEL RICARDO FERNANDO ROBERTO JAVIER',
  [esFirst.generic, esFirst.female, esFirst.male],
  14,
);
/** Accented originals of Spanish surnames, for the awkward cases. */
export const ACCENTED_SURNAMES: readonly string[] = [
  ...new Set(es_MX.person!.last_name!.generic!.filter((w) => /[^\x00-\x7f]/.test(w)).map((w) => w.toUpperCase())),
];

/** Ranks fall off like real surnames: the most common is about 1% of people. */
const zipfOf = (list: readonly string[]): Zipf => new Zipf(list.length, 25);
const enLastZipf = zipfOf(EN_LAST);
const esLastZipf = zipfOf(ES_LAST);
const enFirstZipf = zipfOf(EN_FIRST);
const esFirstZipf = zipfOf(ES_FIRST);
/** Share of Spanish names among Florida's people. */
const SPANISH_SHARE = 0.3;

export function lastNameWord(rng: Rng, spanish = rng.chance(SPANISH_SHARE)): string {
  return spanish ? ES_LAST[esLastZipf.rank(rng)]! : EN_LAST[enLastZipf.rank(rng)]!;
}

export function firstNameWord(rng: Rng, spanish = rng.chance(SPANISH_SHARE)): string {
  return spanish ? ES_FIRST[esFirstZipf.rank(rng)]! : EN_FIRST[enFirstZipf.rank(rng)]!;
}

/** Adjectives people put on a business (faker's general list has too many like HAIRY or ASHAMED). */
const GOOD_ADJECTIVES: readonly string[] = [
  'ADVANCED',
  'AMAZING',
  'ACTIVE',
  'AGILE',
  'ALL',
  'AMERICAS',
  'ANCIENT',
  'AUTHENTIC',
  'AWESOME',
  'BOLD',
  'BRAVE',
  'BRILLIANT',
  'CALM',
  'CAPITAL',
  'CARING',
  'CENTRAL',
  'CLASSIC',
  'CLEAR',
  'CLEVER',
  'COASTLINE',
  'COMPLETE',
  'CREATIVE',
  'CRYSTAL',
  'DELUXE',
  'DIRECT',
  'DIVINE',
  'DYNAMIC',
  'EAGER',
  'EASY',
  'ELEGANT',
  'EPIC',
  'EVER',
  'EXCEL',
  'EXPERT',
  'FAIR',
  'FAITHFUL',
  'FAST',
  'FINE',
  'FIRST CLASS',
  'FRESH',
  'FRIENDLY',
  'FUTURE',
  'GENTLE',
  'GENUINE',
  'GLOBAL',
  'GRAND',
  'GREAT',
  'HAPPY',
  'HARMONY',
  'HONEST',
  'IDEAL',
  'INFINITE',
  'INTEGRITY',
  'JOYFUL',
  'KIND',
  'LASTING',
  'LUCKY',
  'LUXURY',
  'MAJESTIC',
  'MIGHTY',
  'MODERN',
  'NOBLE',
  'OPTIMAL',
  'PERFECT',
  'PLATINUM',
  'POSITIVE',
  'POWER',
  'PRECISE',
  'PRECIOUS',
  'PREMIUM',
  'PRIME',
  'PROUD',
  'QUICK',
  'RAPID',
  'RELIABLE',
  'RESILIENT',
  'RICH',
  'RISING',
  'ROYAL',
  'SAFE',
  'SECURE',
  'SERENE',
  'SILVER',
  'SIMPLE',
  'SOLID',
  'SPARK',
  'SPLENDID',
  'STEADY',
  'STELLAR',
  'STRONG',
  'SUPERIOR',
  'SUPREME',
  'SWIFT',
  'TRUSTED',
  'ULTIMATE',
  'UNIQUE',
  'URBAN',
  'VALIANT',
  'VITAL',
  'VIVID',
  'WISE',
  'WONDER',
  'ZEN',
];

const MID_WORDS: readonly string[] = shuffled(
  uniqueUpper(
    en.word!.noun!.filter((w) => w.length >= 4 && w.length <= 10),
    GOOD_ADJECTIVES,
    en.company!.buzz_noun!,
    en.company!.buzz_adjective!,
    EN_LAST.slice(0, 200),
    ES_LAST.slice(0, 100),
  ),
  0x51ed,
);

/** Syllables for invented brand words (`ZAVORA`, `KELIXO`). */
const ONSETS = [
  'B',
  'BR',
  'C',
  'CH',
  'D',
  'DR',
  'F',
  'FL',
  'G',
  'GR',
  'H',
  'J',
  'K',
  'KR',
  'L',
  'M',
  'N',
  'P',
  'PR',
  'R',
  'S',
  'SH',
  'ST',
  'T',
  'TR',
  'V',
  'Z',
  'SL',
  'BL',
  'W',
  'L',
  'M',
  'N',
  'R',
  'S',
  'T',
  'V',
  'K',
];
const VOWELS = ['A', 'E', 'I', 'O', 'U', 'A', 'E', 'O', 'A', 'I', 'O', 'AI', 'EO', 'IA'];
const CODAS = ['', '', '', '', 'N', 'R', 'L', 'S', 'X', 'M', 'NT', 'ST', 'CK', 'Z'];
const ENDINGS = [
  '',
  '',
  '',
  'A',
  'O',
  'IA',
  'ION',
  'ER',
  'EX',
  'IS',
  'US',
  'ON',
  'ELLA',
  'ORA',
  'IX',
  'ITY',
  'ICA',
  'ERA',
  'IQ',
  'ITO',
];

/** The invented word of rank k: a pure function of k, so the same rank is the same word everywhere. */
function inventedWord(k: number): string {
  // One 32-bit hash per choice, each from the previous: a tiny deterministic stream.
  let h = mix32(k + 0x2545f491);
  const syllables = 2 + ((h >>> 0) % 10 < 2 ? 1 : 0);
  let w = '';
  for (let s = 0; s < syllables; s++) {
    h = mix32(h + 0x9e3779b9);
    w += ONSETS[(h >>> 0) % ONSETS.length]!;
    h = mix32(h + 0x9e3779b9);
    w += VOWELS[(h >>> 0) % VOWELS.length]!;
  }
  h = mix32(h + 0x9e3779b9);
  const tail = (h & 1) === 0 ? CODAS : ENDINGS;
  h = mix32(h + 0x9e3779b9);
  return w + tail[(h >>> 0) % tail.length]!;
}

const headZipf = new Zipf(HEAD_WORDS.length, 2);
const midZipf = new Zipf(MID_WORDS.length, 20);
/** Ranks of invented words: a long Zipf tail, so some repeat and most are seen once. */
const rareZipf = new Zipf(8_000_000, 40);
const tradeZipf = new Zipf(TRADE_WORDS.length, 3);
const tier = new Weighted<0 | 1 | 2>([
  [0, 28],
  [1, 54],
  [2, 18],
]);

/** A distinctive word to stand alone (`ZAVORA LLC`): invented, or any mid-frequency word alike. */
export function brandWord(rng: Rng): string {
  return rng.chance(0.65) ? inventedWord(rareZipf.rank(rng)) : rng.pick(MID_WORDS);
}

/** A general word for a business name. */
export function nameWord(rng: Rng): string {
  switch (tier.pick(rng)) {
    case 0:
      return HEAD_WORDS[headZipf.rank(rng)]!;
    case 1:
      return MID_WORDS[midZipf.rank(rng)]!;
    default:
      return inventedWord(rareZipf.rank(rng));
  }
}

export function tradeWord(rng: Rng): string {
  return TRADE_WORDS[tradeZipf.rank(rng)]!;
}
