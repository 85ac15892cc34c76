// The response shapes of docs/contract.md ("Responses"), exactly: every key
// required, `string|null` as nullable. Tests check every answer against these; OpenAPI and the MCP
// output schemas are generated from them.
import { z } from 'zod';

const date = z.string().meta({ format: 'date', description: 'YYYY-MM-DD' });
const nullable = z.string().nullable();

export const Meta = z.object({
  request_id: z.string(),
  dataset_status: z.enum(['live', 'stale', 'empty']).optional(),
});

export const Pagination = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int().meta({ description: 'Exact number of matches of the query (not of the page).' }),
  has_more: z.boolean().meta({ description: 'offset + limit < total' }),
});

export const FacetValue = z.object({ value: z.string(), count: z.number().int() });

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      request_id: z.string(),
      details: z
        .record(z.string(), z.string())
        .optional()
        .meta({ description: 'For 400s: each bad parameter and why.' }),
    }),
  })
  .meta({ id: 'Error' });

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

export const Officer = z
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

export const OfficerHit = z
  .object({ officer_name: z.string(), title_code: z.string(), document_number: z.string(), entity_name: z.string() })
  .meta({ id: 'OfficerHit' });

export const AgentHit = z
  .object({
    agent_name: z.string(),
    linked_entity_count: z.number().int(),
    city: z.string(),
    state: z.string(),
    zip: z.string(),
  })
  .meta({ id: 'AgentHit' });

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

export const AccountUsageBody = z
  .object({
    events_count: z.number().int(),
    monthly_quota: z.number().int(),
    percent_used: z.number(),
    reset_date: z.string().meta({ format: 'date-time' }),
    plan: z.string(),
  })
  .meta({ id: 'AccountUsageBody' });

/** `{ data: [hit...], pagination, meta }`, with `facets` where the operation offers them. */
export function listEnvelope<T extends z.ZodType>(hit: T, withFacets = false) {
  const base = z.object({ data: z.array(hit), pagination: Pagination, meta: Meta });
  return withFacets
    ? base.extend({
        facets: z
          .record(z.string(), z.array(FacetValue))
          .optional()
          .meta({ description: 'Only when facets were asked for: per facet, up to 20 values by count.' }),
      })
    : base;
}

/** `{ data: object, meta }`. */
export const singleEnvelope = <T extends z.ZodType>(object: T) => z.object({ data: object, meta: Meta });

export type ListBody<T> = {
  data: T[];
  pagination: z.infer<typeof Pagination>;
  facets?: Record<string, Array<z.infer<typeof FacetValue>>>;
};
