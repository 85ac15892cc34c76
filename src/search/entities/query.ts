// An entity search as the operation hands it over: a name, filters, an order and a page
// (docs/contract.md, "Search semantics").
import type { StatusValue } from '../status.js';

export const SORTS = ['relevance', 'name_asc', 'name_desc', 'date_newest', 'date_oldest'] as const;
export type Sort = (typeof SORTS)[number];

export const FACETS = [
  'status',
  'entity_type',
  'principal_city',
  'principal_state',
  'filing_year',
  'state_of_formation',
] as const;
export type Facet = (typeof FACETS)[number];

export interface EntitySearch {
  name?: string;
  status?: StatusValue[];
  entity_type?: string[];
  state?: string;
  principal_city?: string;
  principal_state?: string;
  filed_after?: string;
  filed_before?: string;
  doc_number_prefix?: string;
  officer_name?: string;
  ra_name?: string;
  sort?: Sort;
  limit: number;
  offset: number;
  facets?: Facet[];
}
