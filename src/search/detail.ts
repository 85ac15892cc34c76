// One entity in full: its record, officers (never their addresses), annual reports, registered
// agent, and its most recent filings.
import type pg from 'pg';
import { ENTITY_TYPES } from '../registry/layout.js';
import type { Address, EntityDetail } from './shapes.js';
import { RECENT_FILINGS } from './thresholds.js';

interface Row {
  document_number: string;
  name: string;
  status: string;
  entity_type: string;
  filing_date: string | null;
  fei: string | null;
  state_of_formation: string | null;
  p_addr1: string | null;
  p_addr2: string | null;
  p_city: string | null;
  p_state: string | null;
  p_zip5: string | null;
  p_zip4: string | null;
  p_zip: string | null;
  p_country: string | null;
  m_addr1: string | null;
  m_addr2: string | null;
  m_city: string | null;
  m_state: string | null;
  m_zip: string | null;
  m_country: string | null;
  annual_reports: Array<{ year: number; filed_date: string | null }>;
  agent_name: string | null;
  agent_addr: string | null;
  agent_city: string | null;
  agent_state: string | null;
  agent_zip: string | null;
  inactivation: string | null;
  officers: Array<{ slot: number; title: string; name: string }>;
  filings: Array<{
    event_type: string;
    event_date: string | null;
    document_number: string;
    description: string | null;
  }>;
  event_count: number;
  last_event_date: string | null;
  last_import_at: string | null;
}

const US_STATES = new Set(
  [
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH',
    'OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR VI GU AS MP',
  ]
    .join(' ')
    .split(' '),
);

/** A ZIP shown as ZIP5 or ZIP+4 when it reads as one, else as the registry wrote it. */
const postalCode = (zip5: string | null, zip4: string | null, raw: string | null): string | null =>
  zip5 ? (zip4 ? `${zip5}-${zip4}` : zip5) : raw;

/** The agent's 9-digit ZIP as ZIP+4. */
const agentZip = (raw: string | null): string | null =>
  raw && /^\d{9}$/.test(raw) ? `${raw.slice(0, 5)}-${raw.slice(5)}` : raw;

/** docs/contract.md, "Addresses": a principal address with a street or a city and no state is in Florida. */
export const shownPrincipalState = (state: string | null, line1: string | null, city: string | null): string | null =>
  state ?? (line1 || city ? 'FL' : null);

/** docs/contract.md, "Addresses": a blank country is the US where the state is a US state. */
export const shownCountry = (country: string | null, state: string | null): string | null =>
  country ?? (state && US_STATES.has(state) ? 'US' : null);

function address(a: Address): Address | null {
  if (!a.line1 && !a.line2 && !a.city && !a.state && !a.postal_code) return null;
  return { ...a, country: shownCountry(a.country, a.state) };
}

export async function entityDetail(pool: pg.Pool, documentNumber: string): Promise<EntityDetail | null> {
  // Named: the most frequent query, parsed and planned once per connection.
  const { rows } = await pool.query<Row>({
    name: 'entity_detail',
    text: `SELECT e.document_number, e.name, e.status, e.entity_type, e.filing_date::text, e.fei, e.state_of_formation,
            e.principal_addr1 AS p_addr1, e.principal_addr2 AS p_addr2, e.principal_city AS p_city,
            e.principal_state AS p_state, e.principal_zip5 AS p_zip5, e.principal_zip4 AS p_zip4,
            e.principal_zip AS p_zip, e.principal_country AS p_country,
            e.mailing_addr1 AS m_addr1, e.mailing_addr2 AS m_addr2, e.mailing_city AS m_city,
            e.mailing_state AS m_state, e.mailing_zip AS m_zip, e.mailing_country AS m_country, e.annual_reports,
            e.agent_name, e.agent_addr, e.agent_city, e.agent_state, e.agent_zip,
            (SELECT x.label FROM registry.inactivations x WHERE x.document_number = e.document_number) AS inactivation,
            coalesce((SELECT json_agg(json_build_object('slot', o.slot, 'title', o.title, 'name', o.name)
                                      ORDER BY o.slot)
                      FROM registry.officers o WHERE o.document_number = e.document_number), '[]') AS officers,
            coalesce((SELECT json_agg(f ORDER BY f.event_date DESC NULLS LAST, f.seq DESC) FROM (
                        SELECT ev.filing_type AS event_type, ev.filed_date::text AS event_date, ev.document_number,
                               ev.description, ev.sequence AS seq
                        FROM registry.events ev WHERE ev.document_number = e.document_number
                        ORDER BY ev.filed_date DESC NULLS LAST, ev.sequence DESC LIMIT ${RECENT_FILINGS + 1}) f),
                     '[]') AS filings,
            (SELECT max(ev.filed_date)::text FROM registry.events ev WHERE ev.document_number = e.document_number)
              AS last_event_date,
            (SELECT to_char(last_import_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') FROM dataset_state)
              AS last_import_at
     FROM registry.entities e WHERE e.document_number = $1`,
    values: [documentNumber],
  });
  const r = rows[0];
  if (!r) return null;
  const active = r.status === 'A';
  const inactive = r.status === 'I';
  return {
    document_number: r.document_number,
    entity_name: r.name,
    status: active ? 'active' : inactive ? 'inactive' : r.status ? r.status.toLowerCase() : null,
    status_label: active
      ? 'Active'
      : inactive
        ? r.inactivation
          ? `Inactive - ${r.inactivation}`
          : 'Inactive'
        : r.status || 'Unknown',
    entity_type: r.entity_type || null,
    entity_type_label: ENTITY_TYPES[r.entity_type] ?? (r.entity_type || 'Unknown'),
    filing_date: r.filing_date,
    state: 'FL',
    fei_ein: r.fei,
    state_of_formation: r.state_of_formation,
    last_event_date: r.last_event_date,
    has_more_events: r.filings.length > RECENT_FILINGS,
    annual_reports: r.annual_reports.flatMap((a) => (a.filed_date ? [{ year: a.year, filed_date: a.filed_date }] : [])),
    principal_address: address({
      line1: r.p_addr1,
      line2: r.p_addr2,
      city: r.p_city,
      state: shownPrincipalState(r.p_state, r.p_addr1, r.p_city),
      postal_code: postalCode(r.p_zip5, r.p_zip4, r.p_zip),
      country: r.p_country,
    }),
    mailing_address: address({
      line1: r.m_addr1,
      line2: r.m_addr2,
      city: r.m_city,
      state: r.m_state,
      postal_code: r.m_zip,
      country: r.m_country,
    }),
    registered_agent: r.agent_name
      ? {
          name: r.agent_name,
          address:
            r.agent_addr || r.agent_city
              ? { line1: r.agent_addr, city: r.agent_city, state: r.agent_state, postal_code: agentZip(r.agent_zip) }
              : null,
        }
      : null,
    officers: r.officers.map((o) => ({ slot: o.slot, title: o.title || null, name: o.name, address: null })),
    recent_filings: r.filings.slice(0, RECENT_FILINGS).map((f) => ({
      event_type: f.event_type,
      event_date: f.event_date,
      document_number: f.document_number,
      description: f.description,
    })),
    last_import_at: r.last_import_at,
  };
}
