// The suggest services (v0.2, "Suggest Services"): entities by name as it is typed (the entity search's fuzzy name
// match, which reads a last word as a prefix) or by document number; and the service's properties and types, from
// their short lists. Entity suggestions cost a credit a call, the other two nothing (docs/reconciliation.md, "Costs").
import { z } from 'zod';
import type { Services } from '../services.js';
import { suggestTerms, typeOf, type Term } from './vocabulary.js';

/** Suggestions a call answers: what OpenRefine's drop-down shows without scrolling. */
const SUGGESTIONS = 10;
/** The furthest a `cursor` may reach: suggestions are for the top of a list, the search is for the rest. */
const MAX_CURSOR = 490;

export const SuggestQuery = z.strictObject({
  prefix: z
    .string({ error: 'must be a single text value' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(200, { error: 'must be at most 200 characters' })
    .refine((s) => !s.includes('\0'), { error: 'must not contain a NUL character' }),
  cursor: z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must not be negative' })
    .max(MAX_CURSOR, { error: `must be at most ${MAX_CURSOR}` })
    .default(0),
});
export type SuggestQuery = z.output<typeof SuggestQuery>;

const DOCUMENT_NUMBER = /^[A-Za-z0-9]{6,12}$/;

interface Found {
  readonly document_number: string;
  readonly entity_name: string;
  readonly status: string | null;
  readonly entity_type: string | null;
  /** City and ZIP of the principal address. */
  readonly place: string;
}

const suggestion = (h: Found) => {
  const type = typeOf(h.entity_type);
  return {
    id: h.document_number,
    name: h.entity_name,
    description: [h.document_number, h.status, h.place].filter(Boolean).join(' · '),
    ...(type ? { notable: [type] } : {}),
  };
};

/** Entities whose name matches the prefix; a document number first finds its entity. */
export async function suggestEntities(services: Services, q: SuggestQuery): Promise<unknown> {
  const result = [];
  const byNumber =
    q.cursor === 0 && DOCUMENT_NUMBER.test(q.prefix) ? await services.search.entity(q.prefix.toUpperCase()) : null;
  if (byNumber) {
    const a = byNumber.principal_address;
    const place = [a?.city, a?.postal_code].filter(Boolean).join(' ');
    result.push(suggestion({ ...byNumber, place }));
  }
  const page = await services.search.entities({ name: q.prefix, limit: SUGGESTIONS, offset: q.cursor });
  for (const h of page.hits) {
    if (h.document_number === byNumber?.document_number) continue;
    result.push(suggestion({ ...h, place: [h.principal_city, h.principal_zip].filter(Boolean).join(' ') }));
  }
  return { result: result.slice(0, SUGGESTIONS) };
}

/** Properties or types whose id or name holds the prefix. */
export function suggestFrom(terms: readonly Term[], q: SuggestQuery): unknown {
  const found = suggestTerms(terms, q.prefix).slice(q.cursor, q.cursor + SUGGESTIONS);
  return { result: found.map(({ id, name, description }) => ({ id, name, description })) };
}
