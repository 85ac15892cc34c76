// Batch matching: a customer's rows tied to registered entities with an explained score (docs/matching.md).
import { z } from 'zod';
import { CREDITS_PER_MATCH_QUERY } from '../../accounts/catalog.js';
import { ALGORITHM_NAMES, DEFAULT_ALGORITHM, MatchAnswer } from '../../search/index.js';
import { defineOperation } from '../operation.js';
import { documentNumber, entityTypeCode, text } from '../params.js';
import { singleEnvelope } from '../schemas.js';
import { USE_NOTE } from './list.js';

/** Queries a call holds at most: a bigger list is a match job's (docs/matching.md). */
const MAX_QUERIES = 100;
/** Candidates a query answers at most. */
const MAX_CANDIDATES = 10;

const MatchQueryParam = z.strictObject({
  name: text(1, 200, 'The name as the row holds it: case, punctuation, legal forms, abbreviations and typos are read.'),
  city: text(1, 80, 'The city the row gives (principal or mailing).').optional(),
  zip: z
    .string()
    .regex(/^\d{5}(-?\d{4})?$/, { error: 'must be a ZIP5 or ZIP+4' })
    .meta({ description: 'ZIP5 or ZIP+4 (the first five digits are compared).' })
    .optional(),
  address: text(1, 200, 'Street line: number and street.').optional(),
  officer: text(1, 120, "An officer's name, either word order.").optional(),
  entity_type: entityTypeCode.meta({ description: 'Only entities of this registry type code (FLAL...).' }).optional(),
  document_number: documentNumber.optional(),
  reference: text(1, 200, 'Your own key for the row, answered back as is.').optional(),
});

export const matchEntities = defineOperation({
  name: 'matchEntities',
  tag: 'Matching',
  tool: 'match_entities',
  method: 'post',
  path: '/entities/match',
  title: 'Match names to entities',
  description:
    `Ties up to ${MAX_QUERIES} rows of a list (a name, with city, ZIP, street, officer, type or document number ` +
    'when known) to registered entities. Each answers its best candidates with a score from 0 to 1, a grade per ' +
    'feature (name, legal form, address, city, ZIP, officer: exact, close, different or absent) and its share ' +
    'of the score, and `match: true` on the one candidate whose score and margin over the next are clear. ' +
    `Costs ${CREDITS_PER_MATCH_QUERY} credit per query; the call is refused whole when the balance does not cover ` +
    'it. A query whose search runs past the statement timeout answers `error: "query_timeout"` and no candidates, ' +
    `and is refunded; the call fails (free) only when all of its queries did. ${USE_NOTE}`,
  params: z.strictObject({
    queries: z
      .array(MatchQueryParam)
      .min(1, { error: 'must hold at least one query' })
      .max(MAX_QUERIES, { error: `must hold at most ${MAX_QUERIES} queries` })
      .meta({ description: `The rows to match, 1 to ${MAX_QUERIES}.` }),
    limit: z
      .number({ error: 'must be a number' })
      .int({ error: 'must be an integer' })
      .min(1, { error: 'must be at least 1' })
      .max(MAX_CANDIDATES, { error: `must be at most ${MAX_CANDIDATES}` })
      .default(3)
      .meta({ description: `Candidates per query, 1 to ${MAX_CANDIDATES} (default 3).` }),
    algorithm: z
      .enum(ALGORITHM_NAMES as [string, ...string[]], { error: `must be one of ${ALGORITHM_NAMES.join(', ')}` })
      .default(DEFAULT_ALGORITHM)
      .meta({
        description: `The matcher's version (default the newest, ${DEFAULT_ALGORITHM}); older ones stay callable.`,
      }),
  }),
  kind: 'single',
  result: MatchAnswer,
  response: singleEnvelope(MatchAnswer),
  metered: true,
  credits: (p) => p.queries.length * CREDITS_PER_MATCH_QUERY,
  errors: [400],
  async handle(p, ctx) {
    const algorithm = p.algorithm as (typeof ALGORITHM_NAMES)[number];
    const answer = await ctx.services.search.match(p.queries, { limit: p.limit, algorithm });
    const timedOut = answer.results.filter((r) => r.error !== null).length;
    return { data: answer, unbilled: timedOut * CREDITS_PER_MATCH_QUERY };
  },
});
