// Parsed records as rows of the dataset tables, with the normalized search keys computed here,
// by the same functions the search uses on queries, and their trigram counts (computed here rather
// than by PostgreSQL as rows arrive: show_trgm() cost the copy about 15 µs of server CPU a record).
import { filingTypeOf } from '../codes.js';
import type { CorporateRecord, EventRecord, Name } from '../parse.js';
import { addressKey, nameKey, personKey, trigramCount } from '../../text/normalize.js';
import type { CopyValue } from './copy.js';

export const ENTITY_COLUMNS = [
  'id',
  'document_number',
  'name',
  'name_norm',
  'name_core',
  'name_words',
  'status',
  'entity_type',
  'filing_date',
  'fei',
  'more_officers',
  'last_transaction_date',
  'state_of_formation',
  'principal_addr1',
  'principal_addr2',
  'principal_city',
  'principal_state',
  'principal_zip',
  'principal_zip5',
  'principal_zip4',
  'principal_country',
  'mailing_addr1',
  'mailing_addr2',
  'mailing_city',
  'mailing_state',
  'mailing_zip',
  'mailing_country',
  'annual_reports',
  'agent_name',
  'agent_name_type',
  'agent_addr',
  'agent_city',
  'agent_state',
  'agent_zip',
  'agent_zip5',
  'agent_key',
  'agent_words',
  'address_norm',
  'address_words',
  'source_date',
  'name_trgm',
  'address_trgm',
] as const;

export const OFFICER_COLUMNS = [
  'entity_id',
  'document_number',
  'slot',
  'title',
  'name_type',
  'name',
  'last_name',
  'first_name',
  'middle_initial',
  'name_suffix',
  'name_norm',
  'name_sorted',
  'name_words',
  'name_trgm',
] as const;

export const EVENT_COLUMNS = [
  'document_number',
  'sequence',
  'code',
  'description',
  'effective_date',
  'filed_date',
  'filing_type',
  'notes',
  'merger_number',
  'entity_name',
  'source_date',
] as const;

const orNull = (s: string): string | null => (s === '' ? null : s);

/** Backslash, double quote, tab, LF, CR: what COPY text or an array literal would escape. */
const ESCAPED_BYTES = [0x5c, 0x22, 0x09, 0x0a, 0x0d];

/**
 * Whether the rows of a record line can be written with `copyRow(values, true)`. Every text in them
 * is a field of the line as decoded (UTF-8 and Windows-1252 decode no other byte to an ASCII
 * character), its blanks collapsed or its words normalized, or is built here from digits, dates and
 * codes: a line without these bytes gives none of these characters. Five memchr calls, about 0.1 µs
 * a line; every generated line passes, and a line that fails is escaped as before.
 */
export const isPlainRecord = (line: Buffer): boolean => ESCAPED_BYTES.every((b) => line.indexOf(b) === -1);

/** Search keys of a name: persons by their words in any order, companies by their core words. */
function nameSearchKey(name: Name): { norm: string; sorted: string; words: string[] } {
  if (name.person) return personKey(name.display);
  const key = nameKey(name.display);
  return { norm: key.norm, sorted: key.core, words: key.words };
}

/** Agents repeat (a few registered-agent companies serve a third of all entities): their keys are remembered. */
const agentKeys = new Map<string, ReturnType<typeof nameSearchKey>>();
const AGENT_KEYS_KEPT = 50_000;

function agentSearchKey(name: Name): ReturnType<typeof nameSearchKey> {
  const id = `${name.person ? 'P' : 'C'}${name.display}`;
  let key = agentKeys.get(id);
  if (!key) {
    if (agentKeys.size >= AGENT_KEYS_KEPT) agentKeys.clear();
    key = nameSearchKey(name);
    agentKeys.set(id, key);
  }
  return key;
}

/** The entity row; `id` is null when the database assigns it (daily changes). */
export function entityRow(r: CorporateRecord, id: number | null, sourceDate: string): CopyValue[] {
  const name = nameKey(r.name);
  const p = r.principal;
  const m = r.mailing;
  const agentKey = r.agent ? agentSearchKey(r.agent.name) : null;
  const address = addressKey([p.addr1, p.addr2, p.city].filter((s) => s !== '').join(' '));
  return [
    id,
    r.documentNumber,
    r.name,
    name.norm,
    name.core,
    name.words,
    r.status,
    r.filingType,
    r.fileDate,
    orNull(r.fei),
    r.moreThanSixOfficers,
    r.lastTransactionDate,
    orNull(r.stateOfFormation),
    orNull(p.addr1),
    orNull(p.addr2),
    orNull(p.city),
    orNull(p.state),
    orNull(p.zip),
    p.zip5,
    p.zip4,
    orNull(p.country),
    orNull(m.addr1),
    orNull(m.addr2),
    orNull(m.city),
    orNull(m.state),
    orNull(m.zip),
    orNull(m.country),
    JSON.stringify(r.annualReports.map((a) => ({ year: a.year, filed_date: a.filedDate }))),
    r.agent?.name.display ?? null,
    r.agent ? orNull(r.agent.name.type) : null,
    r.agent ? orNull(r.agent.addr) : null,
    r.agent ? orNull(r.agent.city) : null,
    r.agent ? orNull(r.agent.state) : null,
    r.agent ? orNull(r.agent.zip) : null,
    r.agent?.zip5 ?? null,
    agentKey?.norm ?? null,
    agentKey?.words ?? [],
    orNull(address.norm),
    address.words,
    sourceDate,
    trigramCount(name.core),
    trigramCount(address.norm),
  ];
}

export function officerRows(r: CorporateRecord, entityId: number | null): CopyValue[][] {
  return r.officers.map((o) => {
    const key = nameSearchKey(o.name);
    const person = o.name.person;
    return [
      entityId,
      r.documentNumber,
      o.slot,
      o.title,
      o.name.type,
      o.name.display,
      person ? orNull(person.last) : null,
      person ? orNull(person.first) : null,
      person ? orNull(person.middle) : null,
      person ? orNull(person.suffix) : null,
      key.norm,
      key.sorted,
      key.words,
      trigramCount(key.norm),
    ];
  });
}

export function eventRow(e: EventRecord, sourceDate: string): CopyValue[] {
  return [
    e.documentNumber,
    e.sequence,
    e.code,
    orNull(e.description),
    e.effectiveDate,
    e.filedDate,
    filingTypeOf(e.code),
    orNull(e.notes),
    orNull(e.mergerNumber),
    orNull(e.entityName),
    sourceDate,
  ];
}
