// What a change of the feed tells of an entity (docs/contract.md, "Change feed"): the fields of its record as the
// registry's files give them (not the keys the search derives from them), its officers, and its filings' fields;
// as jsonb, so that two records compare field by field in SQL.

/** The record's fields a change reports, in the order it lists them; then `officers`. */
export const ENTITY_FIELDS = [
  'name',
  'status',
  'entity_type',
  'filing_date',
  'fei',
  'state_of_formation',
  'last_transaction_date',
  'principal_addr1',
  'principal_addr2',
  'principal_city',
  'principal_state',
  'principal_zip',
  'principal_country',
  'mailing_addr1',
  'mailing_addr2',
  'mailing_city',
  'mailing_state',
  'mailing_zip',
  'mailing_country',
  'annual_reports',
  'agent_name',
  'agent_addr',
  'agent_city',
  'agent_state',
  'agent_zip',
] as const;

/** Every field a created, updated or removed entity's change may name. */
const CHANGE_FIELDS: readonly string[] = [...ENTITY_FIELDS, 'officers'];

/** The fields of a filing (a row of the registry's event files) its change holds. */
export const FILING_FIELDS = [
  'sequence',
  'code',
  'filing_type',
  'description',
  'effective_date',
  'filed_date',
] as const;

/**
 * The officer lists of the officer rows `from` (a table, or a query in parentheses) as `[{slot, title, name}]` in
 * slot order, one row per `document_number`: joined to the records, not looked up per record (the importer's temp
 * tables have no index).
 */
export const officerLists = (from: string): string => `
  (SELECT document_number,
          jsonb_agg(jsonb_build_object('slot', slot, 'title', title, 'name', name) ORDER BY slot) AS officers
   FROM ${from} AS listed GROUP BY document_number)`;

/** The fields that are lists (jsonb arrays). */
const LISTS = ['annual_reports', 'officers'];

/** Where `status` is in CHANGE_FIELDS, counted from 1 (a jsonb[] of fieldChanges is indexed so in SQL). */
export const STATUS_AT = CHANGE_FIELDS.indexOf('status') + 1;

/**
 * What changed from entity row `o` to entity row `c` (either may be an outer join's missing side), with their officer
 * lists `oo` and `co` (of officerLists): a jsonb[] in CHANGE_FIELDS order, each element `{field, before, after}`
 * where the field differs, null where it does not. Compared column by column: only what differs is built as jsonb.
 * A missing record's values are null.
 */
export function fieldChanges(o: string, c: string, oo: string, co: string): string {
  const officers = (e: string, list: string): string =>
    `CASE WHEN ${e}.document_number IS NULL THEN NULL ELSE coalesce(${list}, '[]'::jsonb) END`;
  const change = (f: string): string => {
    const [before, after] = f === 'officers' ? [officers(o, oo), officers(c, co)] : [`${o}.${f}`, `${c}.${f}`];
    // An empty list is no value: a new record without officers or annual reports reports none.
    const differs = LISTS.includes(f)
      ? `coalesce(${before}, '[]'::jsonb) IS DISTINCT FROM coalesce(${after}, '[]'::jsonb)`
      : `${before} IS DISTINCT FROM ${after}`;
    return `CASE WHEN ${differs} THEN jsonb_build_object('field', '${f}', 'before', to_jsonb(${before}),
              'after', to_jsonb(${after})) END`;
  };
  return `ARRAY[${CHANGE_FIELDS.map(change).join(', ')}]`;
}

/** Filing row `e` as jsonb, null when it is no row. */
export const filingJson = (e: string): string => `
  CASE WHEN ${e}.document_number IS NULL THEN NULL ELSE
    jsonb_build_object(${FILING_FIELDS.map((f) => `'${f}', ${e}.${f}`).join(', ')})
  END`;
