// What the reconciliation service speaks of (docs/reconciliation.md, "Types and properties"): its types (the
// registry's entity type codes), the properties a query may match on, and the properties data extension fetches.
// The manifest, the suggest services and the property proposals all read these lists.
import { ENTITY_TYPES } from '../../registry/layout.js';

export interface Term {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

/** Every entity type the registry files under, by its code (`FLAL`: Florida Limited Liability Company). */
export const TYPES: readonly Term[] = Object.entries(ENTITY_TYPES).map(([id, name]) => ({
  id,
  name,
  description: `Registry entity type ${id}`,
}));

/** The properties a reconciliation query may carry (`properties: [{ pid, v }]`): each a field of the matcher's. */
export const QUERY_PROPERTIES = [
  { id: 'city', name: 'Principal city', description: "The city of the entity's principal address" },
  { id: 'zip', name: 'Principal ZIP', description: "The ZIP code of the entity's principal address (ZIP5)" },
  {
    id: 'address',
    name: 'Principal address',
    description: "The street of the entity's principal address (USPS abbreviations are read alike)",
  },
  { id: 'officer', name: 'Officer', description: 'The name of one of its officers or managers, any order of words' },
  {
    id: 'document_number',
    name: 'Document number',
    description: 'The Division of Corporations document number, when the row knows it',
  },
] as const satisfies readonly Term[];

export type QueryProperty = (typeof QUERY_PROPERTIES)[number]['id'];

/** The properties data extension fetches, from the entity in full (docs/contract.md, "The entity"). */
export const EXTEND_PROPERTIES = [
  { id: 'status', name: 'Status', description: 'Active, or Inactive with the reason of the last inactivating event' },
  { id: 'entity_type', name: 'Entity type', description: 'The registry entity type, with its code' },
  { id: 'filing_date', name: 'Filing date', description: 'The date the entity was filed' },
  { id: 'principal_address', name: 'Principal address', description: 'The principal address on one line' },
  { id: 'registered_agent', name: 'Registered agent', description: 'The registered agent name' },
  { id: 'officers', name: 'Officers', description: 'Each officer as TITLE: NAME (officer addresses are never given)' },
] as const satisfies readonly Term[];

export type ExtendProperty = (typeof EXTEND_PROPERTIES)[number]['id'];

/** Every property of the service, the query's and the extension's (the property suggest service). */
export const ALL_PROPERTIES: readonly Term[] = [...QUERY_PROPERTIES, ...EXTEND_PROPERTIES];

/** Terms whose id or name holds the prefix (ignoring case), in their order: lists this short need no index. */
export function suggestTerms(terms: readonly Term[], prefix: string): Term[] {
  const p = prefix.trim().toLowerCase();
  return terms.filter((t) => t.id.toLowerCase().includes(p) || t.name.toLowerCase().includes(p));
}

/** A type by its code, as the answers show it: `{ id, name }`. */
export function typeOf(code: string | null): { id: string; name: string } | null {
  if (!code) return null;
  return { id: code, name: ENTITY_TYPES[code] ?? code };
}
