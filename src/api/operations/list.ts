import type { Page } from '../../search/index.js';
import type { ListResult } from '../operation.js';

/** A page of hits as the List envelope's data and pagination. */
export function listResult<T>(page: Page<T>, req: { limit: number; offset: number }): ListResult<T> {
  return {
    data: page.hits,
    pagination: {
      limit: req.limit,
      offset: req.offset,
      total: page.total,
      has_more: req.offset + req.limit < page.total,
    },
  };
}

/** Appended to every description an agent reads: cost and the data-use restriction. */
export const USE_NOTE =
  'Costs 1 credit. Public-record data; not a consumer report: do not use it for credit, employment, insurance, ' +
  'housing, tenant screening or any other purpose covered by consumer-reporting law.';
