// A reconciliation query batch as OpenRefine sends it (v0.2, "Structure of a Reconciliation Query"), read into the
// matcher's queries (docs/matching.md): the name, the type (an entity type code), the properties of QUERY_PROPERTIES
// and the limit. Anything else is refused, named, before a credit is taken.
import { z } from 'zod';
import type { MatchQuery } from '../../search/index.js';
import type { Details } from '../errors.js';
import { MAX_QUERIES_PER_BATCH } from './manifest.js';
import { QUERY_PROPERTIES, TYPES, type QueryProperty } from './vocabulary.js';

/** Candidates a query answers unless it asks: OpenRefine shows three, and a few more let a person choose. */
const DEFAULT_CANDIDATES = 5;
/** The most candidates a query answers: POST /v1/entities/match's most, past which none is a likely match. */
const MAX_CANDIDATES = 10;
/** A query's name, as the entity search's (docs/contract.md, "Entity search parameters"). */
const MAX_NAME = 200;
/** A property value: the longest registry field it is compared with is an address line of 42 characters. */
const MAX_VALUE = 120;

const TYPE_IDS = TYPES.map((t) => t.id);
const PIDS = QUERY_PROPERTIES.map((p) => p.id) as [QueryProperty, ...QueryProperty[]];

const storable = (s: string): boolean => !s.includes('\0');

/** A value as the spec allows it: text, a number (a ZIP column read as numbers), a boolean, or a reconciled entity. */
const Value = z.union([
  z.string(),
  z.number().transform(String),
  z.boolean().transform(String),
  z.object({ id: z.string(), name: z.string().optional() }).transform((e) => e.name ?? e.id),
]);

const Query = z.strictObject({
  query: z
    .string({ error: 'must be text' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(MAX_NAME, { error: `must be at most ${MAX_NAME} characters` })
    .refine(storable, { error: 'must not contain a NUL character' }),
  type: z
    .union([z.string(), z.array(z.string()).max(1, { error: 'must name one type at most' })])
    .transform((t) => (Array.isArray(t) ? t[0] : t))
    .refine((t) => t === undefined || TYPE_IDS.includes(t), { error: `must be one of ${TYPE_IDS.join(', ')}` })
    .optional(),
  limit: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be an integer' })
    .min(1, { error: 'must be at least 1' })
    .transform((n) => Math.min(n, MAX_CANDIDATES))
    .optional(),
  properties: z
    .array(
      z.strictObject({
        pid: z.enum(PIDS, { error: `must be one of ${PIDS.join(', ')}` }),
        v: z.union([Value, z.array(Value)]),
      }),
    )
    .max(PIDS.length * 2, { error: `must hold at most ${PIDS.length * 2} properties` })
    .optional(),
  // Inherited from Freebase and not used by OpenRefine (v0.2, note under "Structure of a Reconciliation Query").
  type_strict: z.enum(['any', 'should', 'all']).optional(),
});

const Batch = z
  .record(z.string().min(1).max(100), Query)
  .refine((b) => Object.keys(b).length >= 1, { error: 'must hold at least one query' })
  .refine((b) => Object.keys(b).length <= MAX_QUERIES_PER_BATCH, {
    error: `must hold at most ${MAX_QUERIES_PER_BATCH} queries (the manifest's batchSize)`,
  });

/** What the matcher compares a property with: a ZIP by its digits, a document number as the registry writes it. */
const PROPERTY_FORMATS: Partial<Record<QueryProperty, { format: RegExp; reason: string }>> = {
  zip: { format: /^\d{5}(-?\d{4})?$/, reason: 'must be a ZIP5 or ZIP+4' },
  document_number: { format: /^[A-Za-z0-9]{6,12}$/, reason: 'must be 6 to 12 letters and digits' },
};

/** One query of the batch as the matcher reads it (its key in the batch is its `reference`), and its own limit. */
export type ReconcileQuery = MatchQuery & { readonly reference: string; readonly limit: number };

/** Zod's issues with a JSON parameter's value, each named by its place under the parameter (`queries.q0.type`). */
export function detailsUnder(name: string, error: z.ZodError): Details {
  const details: Details = {};
  for (const issue of error.issues) {
    const at = [name, ...issue.path.map(String)].join('.');
    const places = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => `${at}.${k}`) : [at];
    const reason = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
    for (const place of places) details[place] = details[place] ? `${details[place]}; ${reason}` : reason;
  }
  return details;
}

export type ReadBatch = { queries: ReconcileQuery[] } | { invalid: Details };

/** The batch in `raw` (the `queries` parameter's JSON), or why it cannot be read, by place in the batch. */
export function readBatch(raw: string): ReadBatch {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { invalid: { queries: 'is not valid JSON' } };
  }
  const parsed = Batch.safeParse(json);
  if (!parsed.success) return { invalid: detailsUnder('queries', parsed.error) };
  const invalid: Details = {};
  const queries = Object.entries(parsed.data).map(([reference, q]) => {
    const props: Partial<Record<QueryProperty, string>> = {};
    for (const [i, p] of (q.properties ?? []).entries()) {
      // A property given several values is compared on its first that is not blank.
      const value = (Array.isArray(p.v) ? p.v : [p.v]).map((v) => v.trim()).find((v) => v !== '');
      if (value === undefined) continue;
      const format = PROPERTY_FORMATS[p.pid];
      const at = `queries.${reference}.properties.${i}.v`;
      if (value.length > MAX_VALUE || !storable(value))
        invalid[at] = `must be at most ${MAX_VALUE} characters, without a NUL character`;
      else if (format && !format.format.test(value)) invalid[at] = `${p.pid} ${format.reason}`;
      else props[p.pid] = p.pid === 'document_number' ? value.toUpperCase() : value;
    }
    return {
      reference,
      name: q.query,
      ...(q.type ? { entity_type: q.type } : {}),
      ...props,
      limit: q.limit ?? DEFAULT_CANDIDATES,
    };
  });
  return Object.keys(invalid).length > 0 ? { invalid } : { queries };
}
