// Parsers of one corporate record and one event record (a line without its terminator).
import { MalformedRecord, date, field, words, zip4, zip5 } from './decode.js';
import {
  CORPORATE_MIN_BYTES,
  CORPORATE_RECORD_BYTES,
  EVENT_RECORD_BYTES,
  OFFICER_SLOTS,
  corporate as C,
  event as E,
  officer as O,
  officerSlotStart,
  personName as PN,
} from './layout.js';

interface Address {
  readonly addr1: string;
  readonly addr2: string;
  readonly city: string;
  readonly state: string;
  readonly zip: string;
  readonly zip5: string | null;
  readonly zip4: string | null;
  readonly country: string;
}

interface PersonParts {
  readonly last: string;
  readonly first: string;
  readonly middle: string;
  readonly suffix: string;
}

/** A name as the registry types it: a company's whole field, or a person's fixed sub-columns. */
export interface Name {
  /** As shown: the company name, or a person's `LAST, FIRST M SUFFIX`. */
  readonly display: string;
  readonly type: string;
  readonly person: PersonParts | null;
}

interface Officer {
  readonly slot: number;
  readonly title: string;
  readonly name: Name;
}

interface Agent {
  readonly name: Name;
  readonly addr: string;
  readonly city: string;
  readonly state: string;
  readonly zip: string;
  readonly zip5: string | null;
}

interface AnnualReport {
  readonly year: number;
  readonly filedDate: string | null;
}

export interface CorporateRecord {
  readonly documentNumber: string;
  readonly name: string;
  readonly status: string;
  readonly filingType: string;
  readonly principal: Address;
  readonly mailing: Address;
  readonly fileDate: string | null;
  readonly fei: string;
  readonly moreThanSixOfficers: boolean;
  readonly lastTransactionDate: string | null;
  readonly stateOfFormation: string;
  readonly annualReports: AnnualReport[];
  readonly agent: Agent | null;
  readonly officers: Officer[];
}

export interface EventRecord {
  readonly documentNumber: string;
  readonly sequence: number;
  readonly code: string;
  readonly description: string;
  readonly effectiveDate: string | null;
  readonly filedDate: string | null;
  readonly notes: string;
  readonly mergerNumber: string;
  readonly entityName: string;
}

type AddressFields = {
  addr1: { start: number; len: number };
  addr2: { start: number; len: number };
  city: { start: number; len: number };
  state: { start: number; len: number };
  zip: { start: number; len: number };
  country?: { start: number; len: number };
};

function address(line: Buffer, f: AddressFields): Address {
  const zip = field(line, f.zip);
  return {
    addr1: words(line, f.addr1),
    addr2: words(line, f.addr2),
    city: words(line, f.city),
    state: field(line, f.state).toUpperCase(),
    zip,
    zip5: zip5(zip),
    zip4: zip4(zip),
    country: f.country ? field(line, f.country).toUpperCase() : '',
  };
}

/** A 42-byte name field at `start`; `type` `P` splits it into its person sub-columns. */
function name(line: Buffer, start: number, type: string): Name {
  if (type === 'P') {
    const person = {
      last: words(line, PN.last, start),
      first: words(line, PN.first, start),
      middle: words(line, PN.middle, start),
      suffix: words(line, PN.suffix, start),
    };
    const given = [person.first, person.middle, person.suffix].filter((p) => p !== '').join(' ');
    const display = person.last && given ? `${person.last}, ${given}` : person.last || given;
    return { display, type, person };
  }
  return { display: words(line, { start: 0, len: 42 }, start), type, person: null };
}

function year(line: Buffer, f: { start: number; len: number }, what: string): number | null {
  const raw = field(line, f);
  if (raw === '' || /^0+$/.test(raw)) return null;
  if (!/^\d{4}$/.test(raw)) throw new MalformedRecord(`${what}: not a year (${JSON.stringify(raw)})`);
  return Number(raw);
}

function requireLength(line: Buffer, min: number, max: number, what: string): void {
  if (line.length < min || line.length > max) {
    const expected = min === max ? `${max}` : `${min} to ${max}`;
    throw new MalformedRecord(`${what} record is ${line.length} bytes, expected ${expected}`);
  }
}

export function parseCorporate(line: Buffer): CorporateRecord {
  requireLength(line, CORPORATE_MIN_BYTES, CORPORATE_RECORD_BYTES, 'corporate');
  const documentNumber = field(line, C.documentNumber).toUpperCase();
  if (!/^[A-Z0-9]+$/.test(documentNumber))
    throw new MalformedRecord(`document number ${JSON.stringify(documentNumber)} is not alphanumeric`);

  const annualReports: AnnualReport[] = [];
  C.annualReports.forEach((ar, i) => {
    const y = year(line, ar.year, `annual report ${i + 1} year`);
    const d = date(line, ar.date, `annual report ${i + 1} date`);
    if (y !== null) annualReports.push({ year: y, filedDate: d });
  });

  const agentName = name(line, C.agent.name.start, field(line, C.agent.nameType).toUpperCase());
  const agentZip = field(line, C.agent.zip);
  const agent: Agent | null = agentName.display
    ? {
        name: agentName,
        addr: words(line, C.agent.addr),
        city: words(line, C.agent.city),
        state: field(line, C.agent.state).toUpperCase(),
        zip: agentZip,
        zip5: zip5(agentZip),
      }
    : null;

  const officers: Officer[] = [];
  for (let slot = 1; slot <= OFFICER_SLOTS; slot++) {
    const base = officerSlotStart(slot);
    const officerName = name(line, base + O.name.start, field(line, O.nameType, base).toUpperCase());
    if (officerName.display)
      officers.push({ slot, title: field(line, O.title, base).toUpperCase(), name: officerName });
  }

  return {
    documentNumber,
    name: words(line, C.name),
    status: field(line, C.status).toUpperCase(),
    filingType: field(line, C.filingType).toUpperCase(),
    principal: address(line, C.principal),
    mailing: address(line, C.mailing),
    fileDate: date(line, C.fileDate, 'file date'),
    fei: field(line, C.fei),
    moreThanSixOfficers: field(line, C.moreThanSixOfficers).toUpperCase() === 'Y',
    lastTransactionDate: date(line, C.lastTransactionDate, 'last transaction date'),
    stateOfFormation: field(line, C.stateOfFormation).toUpperCase(),
    annualReports,
    agent,
    officers,
  };
}

export function parseEvent(line: Buffer): EventRecord {
  requireLength(line, EVENT_RECORD_BYTES, EVENT_RECORD_BYTES, 'event');
  const documentNumber = field(line, E.documentNumber).toUpperCase();
  if (!/^[A-Z0-9]+$/.test(documentNumber))
    throw new MalformedRecord(`document number ${JSON.stringify(documentNumber)} is not alphanumeric`);
  const seq = field(line, E.sequence);
  if (!/^\d+$/.test(seq)) throw new MalformedRecord(`event sequence ${JSON.stringify(seq)} is not a number`);
  return {
    documentNumber,
    sequence: Number(seq),
    code: field(line, E.code).toUpperCase(),
    description: words(line, E.description),
    effectiveDate: date(line, E.effectiveDate, 'effective date'),
    filedDate: date(line, E.filedDate, 'filed date'),
    notes: E.notes
      .map((n) => words(line, n))
      .filter((n) => n !== '')
      .join(' '),
    mergerNumber: field(line, E.mergerNumber),
    entityName: words(line, E.entityName),
  };
}
