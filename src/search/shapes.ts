// What the search answers, defined once: each hit and the entity detail as a zod schema, and its
// TypeScript type derived from it. The API's envelopes, OpenAPI and the MCP output schemas are built
// from these (src/api/schemas.ts); every key is required, and `string | null` is written nullable.
import { z } from 'zod';

const date = z.string().meta({ format: 'date', description: 'YYYY-MM-DD' });
const nullable = z.string().nullable();

export const FacetValue = z.object({ value: z.string(), count: z.number().int() });
export type FacetValue = z.output<typeof FacetValue>;
/** Per facet, its most frequent values with their counts. */
export type FacetCounts = Record<string, FacetValue[]>;

export const EntityHit = z
  .object({
    document_number: z.string(),
    entity_name: z.string(),
    status: z.string().meta({ description: 'active or inactive' }),
    entity_type: z.string().meta({ description: 'Registry entity type code, e.g. FLAL' }),
    filing_date: date,
    principal_address_street: nullable,
    principal_city: z.string(),
    principal_state: z.string(),
    principal_zip: z.string(),
    registered_agent_name: nullable,
  })
  .meta({ id: 'EntityHit' });
export type EntityHit = z.output<typeof EntityHit>;

export const Address = z
  .object({
    line1: nullable,
    line2: nullable,
    city: nullable,
    state: nullable,
    postal_code: nullable,
    country: nullable,
  })
  .meta({ id: 'Address' });
export type Address = z.output<typeof Address>;

const Officer = z
  .object({
    slot: z.number().int().nullable(),
    title: nullable,
    name: z.string(),
    address: z.null().meta({ description: 'Always null: officer addresses are never returned.' }),
  })
  .meta({ id: 'Officer' });

export const EntityDetail = z
  .object({
    document_number: z.string(),
    entity_name: z.string(),
    status: nullable,
    status_label: z.string(),
    entity_type: nullable,
    entity_type_label: z.string(),
    filing_date: nullable,
    state: nullable,
    fei_ein: nullable,
    state_of_formation: nullable,
    last_event_date: nullable,
    has_more_events: z.boolean().nullable(),
    annual_reports: z.array(z.object({ year: z.number().int(), filed_date: z.string() })),
    principal_address: Address.nullable(),
    mailing_address: Address.nullable(),
    registered_agent: z
      .object({
        name: z.string(),
        address: z.object({ line1: nullable, city: nullable, state: nullable, postal_code: nullable }).nullable(),
      })
      .nullable(),
    officers: z.array(Officer),
    recent_filings: z.array(
      z.object({ event_type: nullable, event_date: nullable, document_number: nullable, description: nullable }),
    ),
    last_import_at: nullable,
  })
  .meta({ id: 'EntityDetail' });
export type EntityDetail = z.output<typeof EntityDetail>;

export const OfficerHit = z
  .object({ officer_name: z.string(), title_code: z.string(), document_number: z.string(), entity_name: z.string() })
  .meta({ id: 'OfficerHit' });
export type OfficerHit = z.output<typeof OfficerHit>;

export const AgentHit = z
  .object({
    agent_name: z.string(),
    linked_entity_count: z.number().int(),
    city: z.string(),
    state: z.string(),
    zip: z.string(),
  })
  .meta({ id: 'AgentHit' });
export type AgentHit = z.output<typeof AgentHit>;

export const AddressHit = z
  .object({
    address: z.string(),
    city: z.string(),
    state: z.string(),
    zip: z.string(),
    document_number: z.string(),
    entity_name: z.string(),
  })
  .meta({ id: 'AddressHit' });
export type AddressHit = z.output<typeof AddressHit>;

export const FilingHit = z
  .object({
    document_number: z.string(),
    entity_name: z.string(),
    entity_type: z.string(),
    filing_type: z
      .string()
      .meta({ description: 'FORMATION, or the event kind: AMENDMENT, NAME_CHANGE, DISSOLUTION...' }),
    filing_date: date,
    status: z.string(),
  })
  .meta({ id: 'FilingHit' });
export type FilingHit = z.output<typeof FilingHit>;

export const LeadHit = z
  .object({
    document_number: z.string(),
    entity_name: z.string(),
    entity_type: z.string(),
    filing_date: date,
    city: z.string(),
    state: z.string(),
    zip: z.string(),
    county: nullable,
  })
  .meta({ id: 'LeadHit' });
export type LeadHit = z.output<typeof LeadHit>;

/** A row of the lead feed's daily file (CSV columns, in order). */
export const LeadFileRow = z
  .object({
    document_number: z.string(),
    entity_name: z.string(),
    entity_type: z.string(),
    status: z.string(),
    filing_date: date,
    county: nullable,
    fei_ein: nullable,
    principal_address1: nullable,
    principal_address2: nullable,
    principal_city: nullable,
    principal_state: z.string(),
    principal_zip: nullable,
    mailing_address1: nullable,
    mailing_address2: nullable,
    mailing_city: nullable,
    mailing_state: nullable,
    mailing_zip: nullable,
    registered_agent_name: nullable,
    registered_agent_address: nullable,
    registered_agent_city: nullable,
    registered_agent_state: nullable,
    registered_agent_zip: nullable,
    officers: z.string().meta({ description: 'TITLE: NAME per officer in slot order, joined by "; ".' }),
  })
  .meta({ id: 'LeadFileRow' });
export type LeadFileRow = z.output<typeof LeadFileRow>;
