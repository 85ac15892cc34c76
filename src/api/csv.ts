// CSV answers (docs/contract.md, "CSV"): the page's rows under a header row, UTF-8, RFC 4180 quoting,
// with the pagination in headers.
import { stringify } from 'csv-stringify/sync';
import type { ListResult } from './operation.js';

export function wantsCsv(format: unknown, accept: string | undefined): boolean {
  return format === 'csv' || (format === undefined && /\btext\/csv\b/i.test(accept ?? ''));
}

/** Rows as CSV with the given columns (nested objects are not part of list hits). */
export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
  return stringify(
    rows.map((r) => columns.map((c) => r[c] ?? '')),
    { header: true, columns: [...columns], record_delimiter: '\r\n', cast: { boolean: (b) => String(b) } },
  );
}

export function csvHeaders(list: ListResult): Record<string, string> {
  return {
    'content-type': 'text/csv; charset=utf-8',
    'x-total-count': String(list.pagination.total),
    'x-limit': String(list.pagination.limit),
    'x-offset': String(list.pagination.offset),
  };
}
