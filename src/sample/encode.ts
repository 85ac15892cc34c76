// Byte-exact record encoding straight into a buffer: every field left-aligned, blank-padded, and cut to its
// byte length on a character boundary.
import {
  CORPORATE_RECORD_BYTES,
  EVENT_RECORD_BYTES,
  OFFICER_SLOTS,
  corporate,
  event as eventLayout,
  officer as officerLayout,
  officerSlotStart,
  personName as personLayout,
  type Field,
} from '../registry/layout.js';
import { putMmddyyyy } from './dates.js';
import { EVENT_DESCRIPTIONS } from './events.js';
import { isPerson, type Address, type DateField, type Entity, type EntityEvent, type Party } from './model.js';
import type { PersonName } from './names.js';
import type { Text } from './text.js';

const BLANK = 0x20;

/**
 * Writes `value` at `at`, at most `len` bytes, into blanks: a string as UTF-8, a byte array (Windows-1252) as it
 * is. The two cases live in separate functions so each property access sees one kind of value and stays fast.
 */
function putText(buf: Buffer, at: number, len: number, value: Text): void {
  if (typeof value === 'string') putString(buf, at, len, value);
  else putBytes(buf, at, len, value);
}

/** ASCII is copied char by char; from the first other character on, Buffer.write never writes a partial one. */
function putString(buf: Buffer, at: number, len: number, value: string): void {
  const n = value.length < len ? value.length : len;
  for (let k = 0; k < n; k++) {
    const c = value.charCodeAt(k);
    if (c >= 0x80) {
      buf.write(value.slice(k), at + k, len - k, 'utf8');
      return;
    }
    buf[at + k] = c;
  }
}

function putBytes(buf: Buffer, at: number, len: number, value: Uint8Array): void {
  buf.set(value.length > len ? value.subarray(0, len) : value, at);
}

const put = (buf: Buffer, base: number, field: Field, value: Text): void =>
  putText(buf, base + field.start, field.len, value);

function putDate(buf: Buffer, base: number, field: Field, value: DateField): void {
  if (typeof value === 'number') putMmddyyyy(buf, base + field.start, value);
  else put(buf, base, field, value);
}

function putPerson(buf: Buffer, at: number, name: PersonName): void {
  putText(buf, at + personLayout.last.start, personLayout.last.len, name.last);
  putText(buf, at + personLayout.first.start, personLayout.first.len, name.first);
  putText(buf, at + personLayout.middle.start, personLayout.middle.len, name.middle);
  putText(buf, at + personLayout.suffix.start, personLayout.suffix.len, name.suffix);
}

/** A 42-byte party name: person sub-columns, or the company name across the whole field. */
function putPartyName(buf: Buffer, at: number, len: number, name: Party['name']): void {
  if (isPerson(name)) putPerson(buf, at, name);
  else putText(buf, at, len, name);
}

/** Principal and mailing blocks share one layout, so a mailing address equal to the principal is one copy. */
const ADDRESS_BLOCK = (() => {
  const p = corporate.principal;
  const m = corporate.mailing;
  const len = p.country.start + p.country.len - p.addr1.start;
  if (
    m.country.start + m.country.len - m.addr1.start !== len ||
    m.city.start - m.addr1.start !== p.city.start - p.addr1.start
  ) {
    throw new Error('principal and mailing layouts differ');
  }
  return { from: p.addr1.start, to: m.addr1.start, len };
})();

function putAddress(buf: Buffer, base: number, fields: typeof corporate.principal, a: Address): void {
  put(buf, base, fields.addr1, a.addr1);
  put(buf, base, fields.addr2, a.addr2);
  put(buf, base, fields.city, a.city);
  put(buf, base, fields.state, a.state);
  put(buf, base, fields.zip, a.zip);
  put(buf, base, fields.country, a.country);
}

function putOfficers(buf: Buffer, base: number, e: Entity): void {
  const count = e.officers.length < OFFICER_SLOTS ? e.officers.length : OFFICER_SLOTS;
  for (let k = 0; k < count; k++) {
    const o = e.officers[k]!;
    const at = base + officerSlotStart(k + 1);
    putText(buf, at + officerLayout.title.start, officerLayout.title.len, o.title);
    putText(buf, at + officerLayout.nameType.start, officerLayout.nameType.len, o.nameType);
    putPartyName(buf, at + officerLayout.name.start, officerLayout.name.len, o.name);
    putText(buf, at + officerLayout.addr.start, officerLayout.addr.len, o.addr);
    putText(buf, at + officerLayout.city.start, officerLayout.city.len, o.city);
    putText(buf, at + officerLayout.state.start, officerLayout.state.len, o.state);
    putText(buf, at + officerLayout.zip.start, officerLayout.zip.len, o.zip);
  }
}

function putAgent(buf: Buffer, base: number, agent: Party): void {
  const f = corporate.agent;
  putPartyName(buf, base + f.name.start, f.name.len, agent.name);
  put(buf, base, f.nameType, agent.nameType);
  put(buf, base, f.addr, agent.addr);
  put(buf, base, f.city, agent.city);
  put(buf, base, f.state, agent.state);
  put(buf, base, f.zip, agent.zip);
}

/** Encodes a 1440-byte corporate record at `base`; `nulFiller` for daily files' trailing filler. */
export function encodeCorporate(buf: Buffer, base: number, e: Entity, nulFiller: boolean): void {
  buf.fill(BLANK, base, base + CORPORATE_RECORD_BYTES);
  put(buf, base, corporate.documentNumber, e.documentNumber);
  put(buf, base, corporate.name, e.name);
  buf[base + corporate.status.start] = e.status.charCodeAt(0);
  put(buf, base, corporate.filingType, e.type);
  putAddress(buf, base, corporate.principal, e.principal);
  if (e.mailing === e.principal) {
    buf.copyWithin(base + ADDRESS_BLOCK.to, base + ADDRESS_BLOCK.from, base + ADDRESS_BLOCK.from + ADDRESS_BLOCK.len);
  } else {
    putAddress(buf, base, corporate.mailing, e.mailing);
  }
  putMmddyyyy(buf, base + corporate.fileDate.start, e.fileDate);
  put(buf, base, corporate.fei, e.fei);
  buf[base + corporate.moreThanSixOfficers.start] = e.moreThanSixOfficers ? 0x59 : 0x4e;
  putMmddyyyy(buf, base + corporate.lastTransactionDate.start, e.lastTransaction);
  put(buf, base, corporate.stateOfFormation, e.stateOfFormation);
  const reports = e.annualReports;
  for (let k = 0; k < reports.length && k < corporate.annualReports.length; k++) {
    const f = corporate.annualReports[k]!;
    put(buf, base, f.year, String(reports[k]!.year));
    putMmddyyyy(buf, base + f.date.start, reports[k]!.date);
  }
  putAgent(buf, base, e.agent);
  putOfficers(buf, base, e);
  if (nulFiller) buf.fill(0, base + corporate.filler.start, base + corporate.filler.start + corporate.filler.len);
}

/** A run of bytes the event record copies from the corporate record. */
interface Span {
  readonly from: number;
  readonly to: number;
  readonly len: number;
}

function span(from: Field, fromLast: Field, to: Field, toLast: Field): Span {
  const len = fromLast.start + fromLast.len - from.start;
  if (toLast.start + toLast.len - to.start !== len) throw new Error('event and corporate layouts disagree');
  return { from: from.start, to: to.start, len };
}

/** Document number, name and both addresses (without country) sit alike in both layouts. */
const SHARED_SPANS: readonly Span[] = [
  span(corporate.documentNumber, corporate.documentNumber, eventLayout.documentNumber, eventLayout.documentNumber),
  span(corporate.name, corporate.name, eventLayout.entityName, eventLayout.entityName),
  span(corporate.principal.addr1, corporate.principal.zip, eventLayout.address.addr1, eventLayout.address.zip),
  span(corporate.mailing.addr1, corporate.mailing.zip, eventLayout.mailing.addr1, eventLayout.mailing.zip),
];

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
const codeBytes = new Map<string, { code: Buffer; description: Buffer }>(
  Object.entries(EVENT_DESCRIPTIONS).map(([code, description]) => [
    code,
    { code: latin1(code), description: latin1(description) },
  ]),
);
const sequenceBytes = (n: number): string => String(n).padStart(5, '0');

/**
 * Encodes an entity's events. The entity's part of the record (document number, name, addresses) is taken once
 * from its encoded corporate record into a template; each event copies the template and adds its own fields.
 */
export class EventEncoder {
  private readonly template = Buffer.alloc(EVENT_RECORD_BYTES, BLANK);
  private readonly scratch = Buffer.alloc(CORPORATE_RECORD_BYTES);

  /** Takes the entity's part from its corporate record, encoded at `at` in `record`. */
  useRecord(record: Buffer, at: number): void {
    for (const s of SHARED_SPANS) record.copy(this.template, s.to, at + s.from, at + s.from + s.len);
  }

  /** Takes the entity's part from the entity itself, for an entity whose record is not being written. */
  useEntity(e: Entity): void {
    encodeCorporate(this.scratch, 0, e, false);
    this.useRecord(this.scratch, 0);
  }

  encode(buf: Buffer, base: number, ev: EntityEvent, seq: number): void {
    const f = eventLayout;
    this.template.copy(buf, base);
    put(buf, base, f.sequence, sequenceBytes(seq));
    const code = codeBytes.get(ev.code);
    put(buf, base, f.code, code ? code.code : ev.code);
    if (code) put(buf, base, f.description, code.description);
    putDate(buf, base, f.effectiveDate, ev.effective);
    putMmddyyyy(buf, base + f.filedDate.start, ev.filed);
    for (let k = 0; k < ev.notes.length && k < f.notes.length; k++) put(buf, base, f.notes[k]!, ev.notes[k]!);
    put(buf, base, f.mergerNumber, ev.mergerNumber);
    if (ev.nameChange) {
      put(buf, base, f.nameSequence, sequenceBytes(1));
      put(buf, base, f.crossNameSequence, sequenceBytes(2));
    }
    buf[base + f.nameChangeFlag.start] = ev.nameChange ? 0x59 : 0x4e;
    buf[base + f.crossNameChangeFlag.start] = 0x4e;
  }
}
