// Addresses: Florida cities and ZIPs from the ZIP-to-county table, weighted toward the populous counties,
// street lines in the registry's abbreviated style, and the odd ZIP spellings real files carry.
import { readFileSync } from 'node:fs';
import { Weighted, type Rng } from './random.js';
import { lastNameWord } from './vocabulary.js';

export interface Place {
  readonly city: string;
  readonly state: string;
  readonly zip5: string;
}

/** Relative business weight of a county (about its population in thousands; Miami-Dade and Broward boosted). */
const COUNTY_WEIGHT: Readonly<Record<string, number>> = {
  'Miami-Dade': 4000,
  Broward: 2300,
  'Palm Beach': 1500,
  Hillsborough: 1450,
  Orange: 1450,
  Duval: 990,
  Pinellas: 950,
  Lee: 760,
  Polk: 720,
  Brevard: 600,
  Pasco: 560,
  Volusia: 550,
  Seminole: 470,
  Sarasota: 430,
  Manatee: 400,
  Osceola: 390,
  Collier: 380,
  Lake: 380,
  Marion: 370,
  'St. Lucie': 330,
  Escambia: 320,
  Leon: 290,
  Alachua: 280,
  'St. Johns': 270,
  Clay: 220,
  Okaloosa: 210,
  Hernando: 190,
  'Santa Rosa': 190,
  Charlotte: 185,
  Bay: 175,
  'Indian River': 160,
  Martin: 160,
  Citrus: 150,
  Sumter: 130,
  Flagler: 115,
  Highlands: 100,
  Nassau: 90,
  Monroe: 80,
  Walton: 75,
};
const SMALL_COUNTY_WEIGHT = 30;
/** PO Box ZIPs rarely hold a street address. */
const PO_BOX_FACTOR = 0.15;

function loadFloridaPlaces(): Weighted<Place> {
  const csv = readFileSync(new URL('../../data/fl-zip-county.csv', import.meta.url), 'utf8');
  const rows = csv
    .split('\n')
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(','));
  const zipsPerCounty = new Map<string, number>();
  for (const r of rows) zipsPerCounty.set(r[1]!, (zipsPerCounty.get(r[1]!) ?? 0) + 1);
  return new Weighted(
    rows.map((r) => {
      const [zip, county, , city, kind] = r as [string, string, string, string, string];
      const weight =
        ((COUNTY_WEIGHT[county] ?? SMALL_COUNTY_WEIGHT) / zipsPerCounty.get(county)!) *
        (kind === 'PO Box' ? PO_BOX_FACTOR : 1);
      return [{ city: city.toUpperCase(), state: 'FL', zip5: zip }, weight] as const;
    }),
  );
}

const floridaPlaces = loadFloridaPlaces();

export function floridaPlace(rng: Rng): Place {
  return floridaPlaces.pick(rng);
}

/** Out-of-state cities where foreign entities keep their principal office: city, state, ZIP prefix. */
const OUT_OF_STATE = new Weighted<readonly [string, string, string]>([
  [['NEW YORK', 'NY', '100'], 14],
  [['WILMINGTON', 'DE', '198'], 6],
  [['ATLANTA', 'GA', '303'], 8],
  [['CHICAGO', 'IL', '606'], 6],
  [['HOUSTON', 'TX', '770'], 6],
  [['DALLAS', 'TX', '752'], 6],
  [['LOS ANGELES', 'CA', '900'], 6],
  [['CHARLOTTE', 'NC', '282'], 4],
  [['BOSTON', 'MA', '021'], 3],
  [['NEWARK', 'NJ', '071'], 3],
  [['PHOENIX', 'AZ', '850'], 3],
  [['DENVER', 'CO', '802'], 3],
  [['SEATTLE', 'WA', '981'], 2],
  [['LAS VEGAS', 'NV', '891'], 3],
  [['NASHVILLE', 'TN', '372'], 3],
  [['COLUMBUS', 'OH', '432'], 2],
  [['MINNEAPOLIS', 'MN', '554'], 2],
  [['RICHMOND', 'VA', '232'], 2],
  [['BALTIMORE', 'MD', '212'], 2],
  [['PHILADELPHIA', 'PA', '191'], 3],
  [['SAN JUAN', 'PR', '009'], 2],
  [['SAVANNAH', 'GA', '314'], 1],
  [['BIRMINGHAM', 'AL', '352'], 1],
  [['MOBILE', 'AL', '366'], 1],
]);

export function outOfStatePlace(rng: Rng): Place {
  const [city, state, prefix] = OUT_OF_STATE.pick(rng);
  return { city, state, zip5: prefix + rng.digits(2) };
}

const SUFFIXES = new Weighted<string>([
  ['ST', 22],
  ['AVE', 20],
  ['BLVD', 9],
  ['RD', 12],
  ['DR', 12],
  ['LN', 5],
  ['CT', 5],
  ['WAY', 4],
  ['HWY', 2],
  ['TER', 3],
  ['CIR', 3],
  ['PL', 3],
  ['PKWY', 2],
  ['TRL', 1],
  ['STREET', 1],
  ['AVENUE', 1],
  ['ROAD', 1],
]);
const DIRECTIONS = ['N', 'S', 'E', 'W', 'NE', 'NW', 'SE', 'SW'];
/** Street roots that read as Florida. */
const FLORIDA_ROOTS = [
  'OCEAN',
  'PALM',
  'CORAL',
  'BAY',
  'SUNSET',
  'SUNRISE',
  'LAKE',
  'PINE',
  'OAK',
  'CYPRESS',
  'MAGNOLIA',
  'ORANGE',
  'BISCAYNE',
  'COLLINS',
  'ATLANTIC',
  'FEDERAL',
  'DIXIE',
  'MAIN',
  'CENTRAL',
  'PARK',
  'HARBOR',
  'GULF',
  'BEACH',
  'LAS OLAS',
  'CORAL WAY',
  'FLAGLER',
  'PONCE DE LEON',
  'TAMIAMI',
  'OKEECHOBEE',
  'HILLSBOROUGH',
  'DALE MABRY',
  'INTERNATIONAL',
  'COLONIAL',
  'KIRKMAN',
  'SAN JOSE',
  'BAYMEADOWS',
  'ALTON',
  'WASHINGTON',
  'LINCOLN',
];
/** Plants, birds and landforms, the stock of subdivision street names. */
const NATURE_ROOTS = [
  'MAPLE',
  'CEDAR',
  'WILLOW',
  'HIBISCUS',
  'JASMINE',
  'ORCHID',
  'LAUREL',
  'HERON',
  'EGRET',
  'IBIS',
  'OSPREY',
  'MANATEE',
  'TARPON',
  'SNAPPER',
  'SEAGRAPE',
  'BANYAN',
  'POINCIANA',
  'JACARANDA',
  'MEADOW',
  'BROOK',
  'RIDGE',
  'VALLEY',
  'HILL',
  'FOREST',
  'GROVE',
  'SPRING',
  'HAMMOCK',
  'CREEK',
  'COVE',
  'LAGOON',
  'ISLAND',
  'SHORE',
  'BIRCH',
  'ELM',
  'HICKORY',
  'DOGWOOD',
  'AZALEA',
  'GARDENIA',
  'BOUGAINVILLEA',
  'SABAL PALM',
  'CARDINAL',
  'BLUEBIRD',
  'PELICAN',
  'SANDPIPER',
  'MOCKINGBIRD',
  'FALCON',
  'EAGLE',
  'FOX',
  'DEER',
  'BEAR',
  'PANTHER',
  'CITRUS',
  'MANGO',
  'AVOCADO',
  'KEY LIME',
  'PALMETTO',
  'SAWGRASS',
  'CORAL REEF',
  'SEA OATS',
  'DUNE',
];

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'TH' : (['TH', 'ST', 'ND', 'RD'][n % 10] ?? 'TH');
  return `${n}${suffix}`;
}

/** Street numbers by digit count: mostly three and four digits, some long Miami-Dade style ones. */
const NUMBER_DIGITS = new Weighted<readonly [number, number]>([
  [[1, 9], 5],
  [[10, 99], 12],
  [[100, 999], 30],
  [[1000, 9999], 41],
  [[10000, 99999], 12],
]);

function streetNumber(rng: Rng): string {
  const [lo, hi] = NUMBER_DIGITS.pick(rng);
  return String(rng.between(lo, hi));
}

function streetRoot(rng: Rng): string {
  const r = rng.float();
  if (r < 0.28) return lastNameWord(rng, false);
  if (r < 0.55) return rng.pick(FLORIDA_ROOTS);
  if (r < 0.8) return ordinal(rng.between(1, rng.chance(0.6) ? 40 : 260));
  return rng.pick(NATURE_ROOTS);
}

/** `1234 NW 27TH AVE`, `560 OCEAN DR`, `12 SMITH ST`. */
export function streetLine(rng: Rng): string {
  const dir = rng.chance(0.28) ? `${rng.pick(DIRECTIONS)} ` : '';
  return `${streetNumber(rng)} ${dir}${streetRoot(rng)} ${SUFFIXES.pick(rng)}`;
}

/** Suite and apartment lines (`SUITE 200`, `APT 4B`), or blank. */
export function secondLine(rng: Rng, p: number): string {
  if (!rng.chance(p)) return '';
  switch (rng.int(7)) {
    case 0:
      return `SUITE ${rng.between(1, 20) * 100 + rng.int(3) * 5}`;
    case 1:
      return `STE ${rng.between(100, 999)}`;
    case 2:
      return `APT ${rng.between(1, 30)}${'ABCDEFGH'[rng.int(8)]}`;
    case 3:
      return `UNIT ${rng.between(1, 400)}`;
    case 4:
      return `#${rng.between(100, 2999)}`;
    case 5:
      return `FLOOR ${rng.between(2, 40)}`;
    default:
      return `BLDG ${'ABCDEFG'[rng.int(7)]}`;
  }
}

export function poBox(rng: Rng): string {
  return `${rng.chance(0.8) ? 'PO BOX' : 'P.O. BOX'} ${rng.between(1, 99999)}`;
}

/** A 10-byte address ZIP: mostly a ZIP5, sometimes ZIP+4, rarely one of the odd spellings real files hold. */
export function addressZip(rng: Rng, zip5: string): string {
  const r = rng.float();
  if (r < 0.1) return `${zip5}-${rng.digits(4)}`;
  if (r < 0.103) return `${zip5} USA`;
  if (r < 0.106) return `${zip5}-${rng.digits(3)}`;
  if (r < 0.108) return `${zip5}${rng.digits(4)}`;
  return zip5;
}

/** A 9-byte agent or officer ZIP: five digits, or nine digits run together. */
export function shortZip(rng: Rng, zip5: string): string {
  return rng.chance(0.12) ? zip5 + rng.digits(4) : zip5;
}
