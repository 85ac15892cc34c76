// Cursors (docs/contract.md, "Cursors"): where a list's walk is, handed to the client as an opaque token and
// taken back on its next page. The token is signed, so the position, total and pinned version it carries are the
// ones the service wrote; it names its operation and the query's parameters, so it reads on only the list it
// came from.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Walk } from '../search/index.js';
import { ApiError, badRequest } from './errors.js';

/** A walk as its cursor carries it: the next page's position besides the walk. */
export interface CursorState extends Walk {
  readonly pos: number;
  /** What the first page resolved that the walk keeps (the day "the newest day" meant). */
  readonly scope: string[] | null;
}

/** Parameters that do not make another query: the page, its size, its format, and what the first page alone answers. */
const NOT_THE_QUERY = new Set(['cursor', 'offset', 'limit', 'facets', 'format']);

/** Bytes of the HMAC kept: 128 bits, beyond guessing. */
const SIGNATURE_BYTES = 16;

const Carried = z.tuple([
  z.literal(1),
  z.string(),
  z.string(),
  z.number().int().min(0),
  z.number().int().min(0),
  z.number().int().min(0),
  z.array(z.union([z.string(), z.number(), z.null()])).nullable(),
  z.array(z.string()).nullable(),
]);

/** The query a cursor belongs to: its operation and every parameter but the page's, in a stable form. */
function fingerprint(op: string, params: Record<string, unknown>): string {
  const query = Object.keys(params)
    .filter((k) => !NOT_THE_QUERY.has(k) && params[k] !== undefined)
    .sort()
    .map((k) => [k, params[k]]);
  return createHash('sha256')
    .update(JSON.stringify([op, query]))
    .digest('base64url')
    .slice(0, 16);
}

const NOT_OURS = 'is not a cursor of this service: pass pagination.next_cursor exactly as a page gave it';

export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    // A key of its own, derived from the server secret: a cursor's signature reveals nothing of an API key's hash.
    this.key = createHmac('sha256', secret).update('cursor').digest();
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, SIGNATURE_BYTES).toString('base64url');
  }

  encode(op: string, params: Record<string, unknown>, s: CursorState): string {
    const payload = Buffer.from(
      JSON.stringify([1, op, fingerprint(op, params), s.pos, s.total, s.version, s.after, s.scope]),
    ).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /**
   * Parameters as validation takes them: the operation's schema, then its cursor, so a cursor that is not ours, of
   * another query or with an offset is a 400 of the validation stage (before any credit is reserved).
   */
  parse(op: { name: string; params: z.ZodObject }, args: unknown): ReturnType<z.ZodObject['safeParse']> {
    const parsed = op.params.safeParse(args);
    if (!parsed.success || typeof parsed.data.cursor !== 'string') return parsed;
    let issue: { path: string; message: string } | null = null;
    if (parsed.data.offset !== undefined)
      issue = { path: 'offset', message: 'must not be given with cursor: the cursor says where its page starts' };
    else
      try {
        this.decode(op.name, parsed.data, parsed.data.cursor);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        issue = { path: 'cursor', message: err.extra.details?.cursor ?? err.message };
      }
    return issue
      ? {
          success: false,
          error: new z.ZodError([
            { code: 'custom', path: [issue.path], message: issue.message, input: args },
          ]) as z.ZodError<Record<string, unknown>>,
        }
      : parsed;
  }

  /** The walk `token` carries, or a 400 when it is not one of ours or belongs to another query. */
  decode(op: string, params: Record<string, unknown>, token: string): CursorState {
    const [payload = '', signature = ''] = token.split('.');
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badRequest({ cursor: NOT_OURS });
    let carried: z.output<typeof Carried>;
    try {
      carried = Carried.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    } catch {
      throw badRequest({ cursor: NOT_OURS });
    }
    const [, cursorOp, query, pos, total, version, after, scope] = carried;
    if (cursorOp !== op || query !== fingerprint(op, params))
      throw badRequest({
        cursor:
          'belongs to another query: send the parameters of the page it came from (only limit may change), ' +
          'or leave cursor out to start a new walk',
      });
    return { pos, total, version, after, scope };
  }
}
