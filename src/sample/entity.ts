// One whole registry record: a pure function of (seed, index), so it can be re-derived at any time.
import { COMMERCIAL_AGENTS } from './agents.js';
import { DAILY_TYPES, documentNumber, isForeign, snapshotCore, snapshotRng, type Core } from './core.js';
import { yearOf } from './dates.js';
import { annualReports, history, inactivation } from './events.js';
import { addressZip, floridaPlace, outOfStatePlace, poBox, secondLine, shortZip, streetLine } from './geography.js';
import type { Address, DatasetContext, Entity, Officer, Party } from './model.js';
import { businessName, companyOfficerName, firmName, nameKindOf, personName, type NameKind } from './names.js';
import { Rng, STREAM, Weighted } from './random.js';
import { awkwardText, type Text } from './text.js';
import { ACCENTED_WORDS } from './vocabulary.js';

/** Officers per record, as on a real day. */
const OFFICER_COUNT = new Weighted<number>([
  [0, 4],
  [1, 63],
  [2, 22],
  [3, 6.5],
  [4, 2.6],
  [5, 1.1],
  [6, 0.4],
]);

const LLC_TITLES = new Weighted<string>([
  ['MGR', 38],
  ['AMBR', 29],
  ['MGRM', 12],
  ['MBR', 9],
  ['AR', 4],
  ['AP', 3],
  ['AUTH', 3],
  ['CEO', 1],
  ['P', 1],
]);
const CORP_FIRST_TITLES = new Weighted<string>([
  ['P', 22],
  ['PRES', 18],
  ['PSTD', 12],
  ['CEO', 8],
  ['D', 8],
  ['DIR', 6],
  ['PD', 6],
  ['PS', 5],
  ['PT', 3],
  ['PTD', 3],
  ['VP', 3],
  ['MGR', 3],
  ['C', 2],
  ['CHMN', 1],
]);
const CORP_LATER_TITLES = new Weighted<string>([
  ['VP', 20],
  ['D', 18],
  ['S', 12],
  ['T', 10],
  ['DIR', 10],
  ['SEC', 8],
  ['TREA', 6],
  ['CFO', 5],
  ['ST', 4],
  ['COO', 3],
  ['CEO', 3],
  ['VPS', 2],
  ['C', 1],
  ['V', 2],
]);
const NONPROFIT_FIRST_TITLES = new Weighted<string>([
  ['P', 30],
  ['PRES', 25],
  ['DIR', 20],
  ['C', 10],
  ['D', 10],
  ['CHAI', 5],
]);
const NONPROFIT_LATER_TITLES = new Weighted<string>([
  ['VP', 20],
  ['S', 15],
  ['T', 15],
  ['D', 15],
  ['DIR', 15],
  ['SEC', 10],
  ['TREA', 10],
]);
const PARTNER_TITLES = new Weighted<string>([
  ['G', 85],
  ['GP', 10],
  ['MGR', 5],
]);
const TRUST_TITLES = new Weighted<string>([
  ['TRUS', 70],
  ['T', 20],
  ['TR', 10],
]);

function titleFor(rng: Rng, kind: NameKind, slot: number): string {
  switch (kind) {
    case 'llc':
      return LLC_TITLES.pick(rng);
    case 'partnership':
      return PARTNER_TITLES.pick(rng);
    case 'trust':
      return TRUST_TITLES.pick(rng);
    case 'nonprofit':
      return (slot === 0 ? NONPROFIT_FIRST_TITLES : NONPROFIT_LATER_TITLES).pick(rng);
    default:
      return (slot === 0 ? CORP_FIRST_TITLES : CORP_LATER_TITLES).pick(rng);
  }
}

/** Share of officer slots held by a company, by kind (an LLC's managing company, a partnership's GP). */
const COMPANY_OFFICER_SHARE: Readonly<Record<NameKind, number>> = {
  llc: 0.05,
  corp: 0.01,
  nonprofit: 0.005,
  partnership: 0.7,
  trust: 0,
};
const BLANK_NAME_TYPE_RATE = 0.003;
const AWKWARD_ADDRESS_RATE = 0.003;

function address(addr1: Text, addr2: Text, city: Text, state: string, zip: string, country: string): Address {
  return { addr1, addr2, city, state, zip, country };
}

function streetAddress(rng: Rng): Text {
  if (!rng.chance(AWKWARD_ADDRESS_RATE)) return streetLine(rng);
  const line = `${rng.between(1, 9999)} ${rng.pick(['CALLE', 'AVENIDA', 'PASEO'])} ${rng.pick(ACCENTED_WORDS)}`;
  return awkwardText(line, rng);
}

/** A principal address; its state is blank on about 30% of records, the country on most of those and a few more. */
export function principalAddress(rng: Rng, type: string): Address {
  const place = isForeign(type) && rng.chance(0.35) ? outOfStatePlace(rng) : floridaPlace(rng);
  const addr1 = streetAddress(rng);
  const addr2 = secondLine(rng, 0.3);
  const zip = addressZip(rng, place.zip5);
  const blankState = place.state === 'FL' && rng.chance(0.31);
  const country = blankState ? (rng.chance(0.85) ? '' : 'US') : rng.chance(0.92) ? 'US' : '';
  return address(addr1, addr2, place.city, blankState ? '' : place.state, zip, country);
}

/** Usually the principal address again; else a PO box in the same city or another address. */
export function mailingAddress(rng: Rng, principal: Address, type: string): Address {
  const r = rng.float();
  if (r < 0.72) return principal;
  const { city, state, zip, country } = principal;
  if (r < 0.86) return address(poBox(rng), '', city, state, zip, country);
  const o = principalAddress(rng, type);
  return address(o.addr1, o.addr2, o.city, o.state === '' && rng.chance(0.85) ? 'FL' : o.state, o.zip, o.country);
}

const zip5Of = (a: Address): string => a.zip.slice(0, 5);

/** An officer or agent, at the principal address or somewhere else in Florida. */
function party(
  rng: Rng,
  title: string,
  nameType: Party['nameType'],
  name: Party['name'],
  principal: Address,
  atPrincipal: boolean,
): Officer {
  if (atPrincipal) {
    const state = principal.state || 'FL';
    return {
      title,
      nameType,
      name,
      addr: principal.addr1,
      city: principal.city,
      state,
      zip: shortZip(rng, zip5Of(principal)),
    };
  }
  const place = floridaPlace(rng);
  return {
    title,
    nameType,
    name,
    addr: streetLine(rng),
    city: place.city,
    state: 'FL',
    zip: shortZip(rng, place.zip5),
  };
}

function officer(rng: Rng, kind: NameKind, slot: number, principal: Address): Officer {
  const title = titleFor(rng, kind, slot);
  const company = rng.chance(COMPANY_OFFICER_SHARE[kind]);
  const nameType = company ? 'C' : rng.chance(BLANK_NAME_TYPE_RATE) ? '' : 'P';
  const name = company ? companyOfficerName(rng) : personName(rng);
  return party(rng, title, nameType, name, principal, rng.chance(0.55));
}

export function officerList(rng: Rng, type: string, principal: Address): Officer[] {
  const kind = nameKindOf(type);
  const count = OFFICER_COUNT.pick(rng);
  const out: Officer[] = [];
  for (let slot = 0; slot < count; slot++) out.push(officer(rng, kind, slot, principal));
  return out;
}

/** A commercial agent (most foreign entities, about a quarter of the rest), a firm, or a person. */
export function registeredAgent(rng: Rng, type: string, principal: Address, people: readonly Officer[]): Party {
  const r = rng.float();
  if (r < (isForeign(type) ? 0.75 : 0.24)) {
    const a = COMMERCIAL_AGENTS.pick(rng);
    return { title: '', nameType: 'C', name: a.name, addr: a.addr, city: a.city, state: 'FL', zip: a.zip };
  }
  const inFlorida = principal.state === 'FL' || principal.state === '';
  if (r < 0.4) return party(rng, '', 'C', firmName(rng), principal, false);
  const first = people[0];
  // The owner often serves as the agent, at the business's own address.
  if (first && first.nameType === 'P' && rng.chance(0.65)) return party(rng, '', 'P', first.name, principal, inFlorida);
  return party(rng, '', 'P', personName(rng), principal, inFlorida && rng.chance(0.4));
}

const FEI_PREFIXES = [
  '20',
  '26',
  '27',
  '30',
  '32',
  '45',
  '46',
  '47',
  '59',
  '61',
  '65',
  '81',
  '82',
  '83',
  '84',
  '85',
  '86',
  '87',
  '88',
  '90',
  '92',
];

function feiNumber(rng: Rng): string {
  return rng.chance(0.38) ? `${rng.pick(FEI_PREFIXES)}-${rng.digits(7)}` : '';
}

const FORMATION_STATES = new Weighted<string>([
  ['DE', 45],
  ['NY', 8],
  ['TX', 6],
  ['CA', 6],
  ['GA', 5],
  ['NV', 5],
  ['NJ', 4],
  ['IL', 3],
  ['WY', 3],
  ['OH', 2],
  ['MA', 2],
  ['NC', 2],
  ['PA', 2],
  ['VA', 2],
  ['CO', 2],
  ['MD', 1],
  ['MI', 1],
  ['MN', 1],
  ['AZ', 1],
  ['TN', 1],
]);

/** Six filled slots sometimes stand for more officers than the record can hold. */
export function moreThanSix(rng: Rng, staff: readonly Officer[]): boolean {
  return staff.length === 6 && rng.chance(0.35);
}

interface BuildOptions {
  readonly documentNumber: string;
  /** A fresh formation has no reports or history yet. */
  readonly fresh: boolean;
}

function buildEntity(rng: Rng, ctx: DatasetContext, core: Core, opts: BuildOptions): Entity {
  const { type, active, fileDate } = core;
  const name = businessName(rng, type);
  const principal = principalAddress(rng, type);
  const mailing = mailingAddress(rng, principal, type);
  const staff = officerList(rng, type, principal);
  const agent = registeredAgent(rng, type, principal, staff);
  const fei = feiNumber(rng);
  const stateOfFormation = isForeign(type) ? FORMATION_STATES.pick(rng) : 'FL';
  const end = active ? undefined : inactivation(rng, type, fileDate, ctx.snapshotDay);
  const until = end ? end.date : ctx.snapshotDay;
  const reports = opts.fresh
    ? []
    : annualReports(rng, fileDate, until, end?.code === 'CORAMADMAR' ? yearOf(end.date) : 0);
  const events = opts.fresh ? [] : history(rng, ctx, { type, fileDate, annualReports: reports, end });
  let lastTransaction = fileDate;
  for (const r of reports) if (r.date > lastTransaction) lastTransaction = r.date;
  for (const e of events) if (e.filed > lastTransaction) lastTransaction = e.filed;
  return {
    documentNumber: opts.documentNumber,
    name,
    status: active ? 'A' : 'I',
    type,
    principal,
    mailing,
    fileDate,
    fei,
    moreThanSixOfficers: moreThanSix(rng, staff),
    lastTransaction,
    stateOfFormation,
    annualReports: reports,
    agent,
    officers: staff,
    history: events,
  };
}

/** Snapshot entity `index` (0 .. entities - 1). */
export function snapshotEntity(ctx: DatasetContext, index: number): Entity {
  const rng = snapshotRng(ctx, index);
  const core = snapshotCore(rng, ctx.snapshotDay);
  return buildEntity(rng, ctx, core, { documentNumber: documentNumber(core.type, core.fileDate, index), fresh: false });
}

/** File dates of new filings: about a week behind the file, a few in the future, a few years old. */
function formationDate(rng: Rng, fileDay: number): number {
  const r = rng.float();
  if (r < 0.02) return fileDay + rng.between(1, 60);
  if (r < 0.03) return fileDay - rng.between(365, 15 * 365);
  return fileDay - rng.between(3, 11);
}

/** A new formation in the daily file of `fileDay`; its index continues the snapshot's sequence. */
export function formationEntity(ctx: DatasetContext, index: number, fileDay: number): Entity {
  const rng = new Rng(ctx.seed, STREAM.formation, index);
  const type = DAILY_TYPES.pick(rng);
  const fileDate = formationDate(rng, fileDay);
  const core = { type, active: true, fileDate };
  return buildEntity(rng, ctx, core, { documentNumber: documentNumber(type, fileDate, index), fresh: true });
}
