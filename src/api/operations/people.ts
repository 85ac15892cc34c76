import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { pagination, text } from '../params.js';
import { AddressHit, AgentHit, OfficerHit } from '../../search/index.js';
import { listEnvelope } from '../schemas.js';
import { paged, USE_NOTE } from './list.js';

export const searchOfficers = defineOperation({
  name: 'searchOfficers',
  tag: 'People and places',
  tool: 'search_officers',
  path: '/officers/search',
  title: 'Search officers',
  description:
    'Find officers, managers, members and directors by name ' +
    '(fuzzy; a person is found by either word order, "SMITH JOHN" or "John Smith"), ' +
    "optionally by title code (MGR, AMBR, P, VP, D...). One row per officer slot and entity, with the entity's name. " +
    `Officer addresses are never returned. ${USE_NOTE}`,
  params: z.strictObject({
    name: text(1, 200, 'Officer name, fuzzy, either word order.').optional(),
    title: text(
      1,
      20,
      'Title code, ignoring case (MGR manager, AMBR authorized member, P president, D director...).',
    ).optional(),
    ...pagination(25, 200),
  }),
  kind: 'list',
  result: OfficerHit,
  response: listEnvelope(OfficerHit),
  metered: true,
  errors: [400],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, (page) => ctx.services.search.officers({ ...p, ...page }));
  },
});

export const searchAgents = defineOperation({
  name: 'searchAgents',
  tag: 'People and places',
  tool: 'search_agents',
  path: '/agents/search',
  title: 'Search registered agents',
  description:
    'Find registered agents by name (fuzzy). ' +
    'One row per agent (normalized name and ZIP) with the number of entities it represents; ' +
    `ordered exact, prefix, similarity, then by that count. ${USE_NOTE}`,
  params: z.strictObject({ name: text(1, 200, 'Agent name, fuzzy.').optional(), ...pagination(25, 200) }),
  kind: 'list',
  result: AgentHit,
  response: listEnvelope(AgentHit),
  metered: true,
  errors: [400],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, (page) => ctx.services.search.agents({ ...p, ...page }));
  },
});

export const searchAddresses = defineOperation({
  name: 'searchAddresses',
  tag: 'People and places',
  tool: 'search_addresses',
  path: '/addresses/search',
  title: 'Search addresses',
  description:
    'Find entities by principal address: a ZIP5 (33101) or ZIP+4 (33101-1234) matches the postal code exactly; ' +
    'anything else (street, city) matches the normalized address fuzzily. ' +
    `One row per address and entity. ${USE_NOTE}`,
  params: z.strictObject({ query: text(1, 200, 'Street, city, ZIP5 or ZIP+4.'), ...pagination(25, 200) }),
  kind: 'list',
  result: AddressHit,
  response: listEnvelope(AddressHit),
  metered: true,
  errors: [400],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, (page) => ctx.services.search.addresses({ ...p, ...page }));
  },
});
