import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { AccountUsageBody, singleEnvelope } from '../schemas.js';

export const accountUsage = defineOperation({
  name: 'getAccountUsage',
  tag: 'Account',
  tool: null,
  path: '/account/usage',
  title: 'Account usage',
  description:
    "Metered requests of the calling key's workspace this UTC month (test keys: their own pool), " +
    'the monthly quota and when it resets. Free of charge.',
  params: z.strictObject({}),
  kind: 'single',
  result: AccountUsageBody,
  response: singleEnvelope(AccountUsageBody),
  metered: false,
  errors: [],
  async handle(_p, ctx) {
    return { data: await ctx.services.usage(ctx.caller!) };
  },
});
