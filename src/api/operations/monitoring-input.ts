// The monitoring operations' parameters checked outside a request (the CLI, the account pages): the same zod
// schemas as the REST routes, so every surface refuses the same input for the same reasons.
import type { z } from 'zod';
import type { Details } from '../errors.js';
import type { Operation } from '../operation.js';
import { validationDetails } from '../refusals.js';

/** Bad input: each parameter at fault with its reason, as a REST 400 names them. */
export class InputRefusal extends Error {
  constructor(readonly details: Details) {
    super(
      Object.entries(details)
        .map(([param, reason]) => `${param}: ${reason}`)
        .join('; '),
    );
  }
}

/** The parsed parameters of `op`, or an InputRefusal. */
export function checkInput<P extends z.ZodObject>(op: Operation<P>, raw: Record<string, unknown>): z.output<P> {
  const parsed = op.params.safeParse(raw);
  if (!parsed.success) throw new InputRefusal(validationDetails(parsed.error));
  return parsed.data;
}
