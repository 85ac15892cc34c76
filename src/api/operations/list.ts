import type { Keys, Page } from '../../search/index.js';
import type { CursorState } from '../cursor.js';
import { WalkExpired } from '../../search/index.js';
import { HISTORY_DAYS } from '../../registry/import/history.js';
import { ApiError } from '../errors.js';
import type { HandlerContext, ListResult } from '../operation.js';

/** The page a list operation reads: its size and first row's position. */
export interface PageAt {
  limit: number;
  offset: number;
}

/**
 * What a list read returns: a page; for a walk read by keys, its pinned version and last row's keys; and what the
 * first page resolved that later ones must keep (`scope`: the day "the newest day" meant).
 */
type Read<T> = (
  page: PageAt,
  walk: CursorState | null,
) => Promise<Page<T> & { version?: number; last?: Keys | null; scope?: string[] }>;

/**
 * A list operation's page (docs/contract.md, "Pagination" and "Cursors"): by offset, or by the cursor of the page
 * before; `next_cursor` leads on while rows are left. `op` names the operation its cursors belong to.
 */
export async function paged<T>(
  ctx: HandlerContext,
  op: string,
  p: { limit: number; offset?: number | undefined; cursor?: string | undefined } & Record<string, unknown>,
  read: Read<T>,
): Promise<ListResult<T>> {
  // Validation has checked the cursor (CursorCodec.parse).
  const state = p.cursor === undefined ? null : ctx.services.cursors.decode(op, p, p.cursor);
  const offset = state?.pos ?? p.offset ?? 0;
  let page: Awaited<ReturnType<Read<T>>>;
  try {
    page = await read({ limit: p.limit, offset }, state);
  } catch (err) {
    if (err instanceof WalkExpired)
      throw new ApiError(
        'cursor_expired',
        `This cursor read the dataset as it was at version ${err.version}, which is no longer kept (a cursor ` +
          `reads on for ${HISTORY_DAYS} days, and until a full load). Start the walk again without cursor.`,
      );
    throw err;
  }
  const total = state?.total ?? page.total;
  const hasMore = offset + p.limit < total && page.hits.length > 0;
  const next = hasMore
    ? ctx.services.cursors.encode(op, p, {
        pos: offset + p.limit,
        total,
        version: page.version ?? 0,
        after: page.last ?? null,
        scope: state?.scope ?? page.scope ?? null,
      })
    : null;
  return { data: page.hits, pagination: { limit: p.limit, offset, total, has_more: hasMore, next_cursor: next } };
}

/** A list answered whole, in one page (a workspace's few endpoints, saved searches, credentials). */
export const wholeList = <T>(rows: T[]): ListResult<T> =>
  listResult(
    { hits: rows, total: rows.length },
    {
      limit: rows.length,
      offset: 0,
    },
  );

/** A page of a list that has no more pages to offer (a sample, a fixed top). */
export function listResult<T>(page: Page<T>, req: PageAt): ListResult<T> {
  const hasMore = req.offset + req.limit < page.total;
  return {
    data: page.hits,
    pagination: { limit: req.limit, offset: req.offset, total: page.total, has_more: hasMore, next_cursor: null },
  };
}

/** Appended to every description an agent reads: cost and the data-use restriction. */
export const USE_NOTE =
  'Costs 1 credit. Public-record data; not a consumer report: do not use it for credit, employment, insurance, ' +
  'housing, tenant screening or any other purpose covered by consumer-reporting law.';
