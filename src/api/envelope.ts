// The body an operation's answer is sent in (docs/contract.md, "Responses"): a file as it is, one object under `data`,
// a list with its pagination (and facets), each with the request's id and, for lists, the dataset's status.
import type { DatasetInfo } from '../registry/dataset-info.js';
import type { ListResult, Operation, SingleResult } from './operation.js';
import type { Result } from './outcome.js';

export async function envelope(
  op: Operation,
  result: Result,
  requestId: string,
  dataset: DatasetInfo,
): Promise<unknown> {
  if ('file' in result) return result.file.body;
  if (op.kind === 'single') return { data: (result as SingleResult).data, meta: { request_id: requestId } };
  const list = result as ListResult;
  const meta = { request_id: requestId, dataset_status: await dataset.status() };
  return list.facets
    ? { data: list.data, pagination: list.pagination, facets: list.facets, meta }
    : { data: list.data, pagination: list.pagination, meta };
}
