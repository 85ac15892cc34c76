import { z } from 'zod';
import { EntityDetail, EntityHit, FACETS, SORTS, STATUS_VALUES, type EntityPage } from '../../search/index.js';
import { ApiError } from '../errors.js';
import { defineOperation } from '../operation.js';
import { documentNumber, entityTypeCode, isoDate, multi, oneOf, pagination, text, twoLetters } from '../params.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { paged, USE_NOTE } from './list.js';

export const entitySearchParams = z.strictObject({
  name: text(
    1,
    200,
    'Entity name, matched fuzzily: case, punctuation, accents, legal suffixes (LLC, Inc) ' +
      'and small typos do not matter.',
  ).optional(),
  status: multi(
    z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(STATUS_VALUES, { error: `must be one of ${STATUS_VALUES.join(', ')}` })),
    'active/a, inactive/i, or a refined inactive status: ' +
      'd dissolved, r revoked, w withdrawn, m merged, n name held, p pending, x expired.',
    STATUS_VALUES,
  ).optional(),
  entity_type: multi(
    entityTypeCode,
    'Registry entity type codes, UPPERCASE (FLAL, DOMP, DOMNP, FORP, FORL...).',
  ).optional(),
  state: twoLetters('Registry jurisdiction (FL).').optional(),
  principal_city: text(1, 80, 'Principal city, exact match ignoring case.').optional(),
  principal_state: twoLetters('Principal address state (blank in the registry counts as FL).').optional(),
  filed_after: isoDate('Filed on or after this date.').optional(),
  filed_before: isoDate('Filed on or before this date.').optional(),
  doc_number_prefix: text(1, 20, 'Start of the document number, ignoring case.').optional(),
  officer_name: text(1, 120, 'Has an officer with this name (fuzzy, either word order).').optional(),
  ra_name: text(1, 120, 'Has a registered agent with this name (fuzzy).').optional(),
  sort: oneOf(
    SORTS,
    'relevance (default with a name; without one it means date_newest), name_asc, name_desc, date_newest, date_oldest.',
  ).optional(),
  ...pagination(25, 500),
  facets: multi(
    z
      .string()
      .min(1)
      .max(40)
      .pipe(z.enum(FACETS, { error: `must be one of ${FACETS.join(', ')}` })),
    `Facet counts over the whole match set (up to 20 values each): ${FACETS.join(', ')}.`,
    FACETS,
  ).optional(),
});

export const searchEntities = defineOperation({
  name: 'searchEntities',
  tag: 'Entities',
  tool: 'search_entities',
  path: '/entities/search',
  title: 'Search entities',
  description:
    'Search Florida corporate-registry entities (companies, non-profits, partnerships; active and historical) ' +
    'by fuzzy name and filters. Ranked exact match, then prefix, then trigram similarity; ' +
    'ties by filing date (newest first) then document number. ' +
    `Returns up to 500 hits a page with the exact total. ${USE_NOTE}`,
  params: entitySearchParams,
  kind: 'list',
  result: EntityHit,
  response: listEnvelope(EntityHit, true),
  metered: true,
  errors: [400, 410],
  async handle(p, ctx) {
    let facets: EntityPage['facets'];
    const result = await paged(ctx, this.name, p, async (page, walk) => {
      const found = await ctx.services.search.entityWalk({ ...p, ...page }, walk);
      facets = found.facets;
      return found;
    });
    return facets ? { ...result, facets } : result;
  },
});

export const getEntity = defineOperation({
  name: 'getEntity',
  tag: 'Entities',
  tool: 'get_entity',
  path: '/entities/{document_number}',
  title: 'Get an entity',
  description:
    'One entity by its document number: status with a refined label, type, dates, FEI/EIN, ' +
    'principal and mailing addresses, registered agent with address, officers (names and titles only), ' +
    `annual reports and the 50 most recent filings. ${USE_NOTE}`,
  params: z.strictObject({ document_number: documentNumber }),
  kind: 'single',
  result: EntityDetail,
  response: singleEnvelope(EntityDetail),
  metered: true,
  errors: [400, 404],
  async handle(p, ctx) {
    const entity = await ctx.services.search.entity(p.document_number);
    if (!entity) throw new ApiError('not_found', `No entity with document number ${p.document_number}.`);
    return { data: entity };
  },
});
