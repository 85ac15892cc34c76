// Data extension (v0.2, "Data Extension Service"): the values of chosen properties of reconciled entities, read from
// each entity in full; and the property proposals OpenRefine lists for a type. One credit per entity asked for
// (docs/reconciliation.md, "Costs"): each is the read of GET /v1/entities/{document_number}.
import { z } from 'zod';
import type { EntityDetail } from '../../search/index.js';
import { documentNumber } from '../params.js';
import type { Services } from '../services.js';
import { addressLine } from './preview.js';
import { EXTEND_PROPERTIES, TYPES, type ExtendProperty } from './vocabulary.js';

/** The most entities one extension call reads: OpenRefine asks for 10 at a time; a call stays a short read. */
const MAX_EXTEND_IDS = 50;

const PROPERTY_IDS = EXTEND_PROPERTIES.map((p) => p.id) as [ExtendProperty, ...ExtendProperty[]];
const TYPE_IDS = TYPES.map((t) => t.id);

export const ExtendQuery = z.strictObject({
  ids: z
    .array(documentNumber)
    .min(1, { error: 'must name at least one entity' })
    .max(MAX_EXTEND_IDS, { error: `must name at most ${MAX_EXTEND_IDS} entities` }),
  properties: z
    .array(
      z.strictObject({
        id: z.enum(PROPERTY_IDS, { error: `must be one of ${PROPERTY_IDS.join(', ')}` }),
        // No property takes a setting (the manifest offers none): any sent are read as absent.
        settings: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .min(1, { error: 'must name at least one property' }),
});
export type ExtendQuery = z.output<typeof ExtendQuery>;

/** The entities an extension reads, each once (a repeated id costs nothing more). */
export const distinctIds = (q: ExtendQuery): string[] => [...new Set(q.ids)];

type Cell = { str: string } | { date: string };

function values(e: EntityDetail, property: ExtendProperty): Cell[] {
  const str = (s: string | null | undefined): Cell[] => (s ? [{ str: s }] : []);
  switch (property) {
    case 'status':
      return str(e.status_label);
    case 'entity_type':
      return str(e.entity_type ? `${e.entity_type_label} (${e.entity_type})` : null);
    case 'filing_date':
      // The schema's dates are instants: the day at midnight UTC.
      return e.filing_date ? [{ date: `${e.filing_date}T00:00:00Z` }] : [];
    case 'principal_address':
      return str(addressLine(e.principal_address));
    case 'registered_agent':
      return str(e.registered_agent?.name);
    case 'officers':
      return e.officers.map((o) => ({ str: o.title ? `${o.title}: ${o.name}` : o.name }));
  }
}

/** The extension's answer: the properties asked for, and per entity their values (none for an unknown entity). */
export async function extend(services: Services, q: ExtendQuery): Promise<unknown> {
  const asked = [...new Set(q.properties.map((p) => p.id))];
  const rows: Record<string, Record<string, Cell[]>> = {};
  // One at a time: each is one indexed read, and a batch must not hold the read pool's every connection.
  for (const id of distinctIds(q)) {
    const entity = await services.search.entity(id);
    rows[id] = Object.fromEntries(asked.map((p) => [p, entity ? values(entity, p) : []]));
  }
  const meta = asked.map((id) => ({ id, name: EXTEND_PROPERTIES.find((p) => p.id === id)!.name }));
  return { meta, rows };
}

/** The most properties a proposal lists (every one there is: the list is short). */
const MAX_PROPOSED = EXTEND_PROPERTIES.length;

export const ProposeQuery = z.strictObject({
  type: z.enum(TYPE_IDS as [string, ...string[]], { error: `must be one of the types: ${TYPE_IDS.join(', ')}` }),
  limit: z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(1, { error: 'must be at least 1' })
    .optional(),
});

/** The properties proposed for a type: the same for every type, the registry records the same fields for all. */
export function propose(q: z.output<typeof ProposeQuery>): unknown {
  const properties = EXTEND_PROPERTIES.slice(0, Math.min(q.limit ?? MAX_PROPOSED, MAX_PROPOSED)).map(
    ({ id, name, description }) => ({ id, name, description }),
  );
  return { type: q.type, properties, ...(q.limit === undefined ? {} : { limit: q.limit }) };
}
