// What the matcher is asked and answers (docs/matching.md), defined once as zod schemas: the API's
// envelope, OpenAPI and the MCP output schema are built from them, as from the search's shapes.
import { z } from 'zod';

/** The features a candidate is graded on, in the order they are shown. */
export const MATCH_FEATURES = ['name', 'legal_form', 'address', 'city', 'zip', 'officer'] as const;
export type MatchFeature = (typeof MATCH_FEATURES)[number];

/** absent: the query or the entity does not have it, and it counts neither way. */
const GRADES = ['exact', 'close', 'different', 'absent'] as const;
export type Grade = (typeof GRADES)[number];

/** Why a query has no answer while the others of its call have theirs. */
const MATCH_ERRORS = ['query_timeout'] as const;

/** One row of a customer's list, as the matcher reads it. */
export interface MatchQuery {
  readonly name: string;
  readonly city?: string;
  readonly zip?: string;
  readonly address?: string;
  readonly officer?: string;
  readonly entity_type?: string;
  readonly document_number?: string;
  readonly reference?: string;
}

const FeatureScore = z
  .object({
    grade: z.enum(GRADES),
    contribution: z.number().meta({ description: "The feature's share of the score (the shares add up to it)." }),
  })
  .meta({ id: 'FeatureScore' });
export type FeatureScore = z.output<typeof FeatureScore>;

export const MatchCandidate = z
  .object({
    document_number: z.string(),
    entity_name: z.string(),
    status: z.string().meta({ description: 'active or inactive' }),
    entity_type: z.string(),
    principal_address_street: z.string().nullable(),
    principal_city: z.string(),
    principal_zip: z.string(),
    score: z.number().meta({ description: 'From 0 to 1: how surely this entity is the one the query names.' }),
    match: z.boolean().meta({ description: 'Clear score and clear margin over the next candidate (the threshold).' }),
    features: z.object(
      Object.fromEntries(MATCH_FEATURES.map((f) => [f, FeatureScore])) as Record<MatchFeature, typeof FeatureScore>,
    ),
  })
  .meta({ id: 'MatchCandidate' });
export type MatchCandidate = z.output<typeof MatchCandidate>;

const MatchResult = z
  .object({
    reference: z.string().nullable().meta({ description: "The query's own reference, as sent." }),
    match: MatchCandidate.nullable().meta({ description: 'The candidate that matches, if one does.' }),
    candidates: z.array(MatchCandidate),
    error: z
      .enum(MATCH_ERRORS)
      .nullable()
      .meta({
        description:
          "null, or `query_timeout`: this query's search ran past the statement timeout, so it has no candidates " +
          'and is not charged. Retry it alone, or narrow it with a city, ZIP or document number.',
      }),
  })
  .meta({ id: 'MatchResult' });

export const MatchAnswer = z
  .object({
    algorithm: z.string(),
    threshold: z.object({
      score: z.number().meta({ description: 'A match scores at least this.' }),
      margin: z.number().meta({ description: 'and at least this much more than the next candidate.' }),
    }),
    results: z.array(MatchResult).meta({ description: 'One per query, in their order.' }),
  })
  .meta({ id: 'MatchAnswer' });
export type MatchAnswer = z.output<typeof MatchAnswer>;
