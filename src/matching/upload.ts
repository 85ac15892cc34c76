// A job's rows read from an uploaded file as it streams in, never held whole (docs/matching.md, "Jobs"): CSV with a
// header row, or JSON lines; each row's fields taken from the columns the mapping names, written in batches inside
// the one transaction that creates the job, so a refused file leaves nothing behind.
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type pg from 'pg';
import { MATCH_FIELDS, type MatchField } from './jobs.js';

/** The most rows a job holds: a bigger list is split by the customer. */
export const MAX_JOB_ROWS = 1_000_000;
/** The most bytes an upload may have: 1,000,000 rows of a wide CRM export. */
const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
/** Rows written a statement: few round trips, and a small batch in memory. */
const INSERT_BATCH = 2_000;
/** The longest value a field keeps (the match operation's own limits are 80 to 200 characters). */
const FIELD_MAX_LENGTH = 200;

export type Mapping = Partial<Record<MatchField, string>>;

/** A file the job refuses, with the row (1 is the first data row) or the field it is about. */
export class UploadRefusal extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** The fields of one record, by the mapping; a name is required. */
function fieldsOf(record: Record<string, unknown>, mapping: Mapping, row: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of MATCH_FIELDS) {
    const column = mapping[field];
    const raw = column === undefined ? undefined : record[column];
    if (raw === undefined || raw === null) continue;
    const value = String(raw).trim().slice(0, FIELD_MAX_LENGTH);
    if (value !== '') out[field] = value;
  }
  if (!out.name) throw new UploadRefusal('name', `Row ${row} has no name (column "${mapping.name}").`);
  return out;
}

/** The mapping with each field not given taken from a column of the same name (any case), when there is one. */
function completeMapping(mapping: Mapping, columns: readonly string[]): Mapping {
  const out: Mapping = { ...mapping };
  for (const field of MATCH_FIELDS)
    if (out[field] === undefined) {
      const same = columns.find((c) => c.trim().toLowerCase() === field);
      if (same !== undefined) out[field] = same;
    }
  for (const [field, column] of Object.entries(out))
    if (!columns.includes(column)) throw new UploadRefusal(field, `The file has no column "${column}".`);
  if (out.name === undefined) throw new UploadRefusal('name', 'Name the column holding the names (`name=...`).');
  return out;
}

/** Counts the bytes going through, refusing past MAX_UPLOAD_BYTES. */
function byteLimit(): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > MAX_UPLOAD_BYTES) done(new UploadRefusal('body', `The file is over ${MAX_UPLOAD_BYTES} bytes.`));
      else done(null, chunk);
    },
  });
}

/** The file's records as objects: a CSV's by its header, JSON lines as they are. */
async function* records(body: Readable, format: 'csv' | 'jsonl'): AsyncGenerator<Record<string, unknown>> {
  const limited = body.pipe(byteLimit());
  body.on('error', (err) => limited.destroy(err));
  if (format === 'csv') {
    yield* limited.pipe(parse({ columns: true, bom: true, skip_empty_lines: true, trim: false }));
    return;
  }
  let line = 0;
  for await (const text of createInterface({ input: limited, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UploadRefusal('body', `Line ${line} is not JSON.`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new UploadRefusal('body', `Line ${line} is not a JSON object.`);
    yield value as Record<string, unknown>;
  }
}

/**
 * Writes the rows of `body` to the job `job` (created in the same transaction by the caller) and answers their
 * number and the mapping used. CSV: the mapping names header columns; JSON lines: keys.
 */
export async function writeRows(
  client: pg.ClientBase,
  job: string,
  body: Readable,
  format: 'csv' | 'jsonl',
  asked: Mapping,
): Promise<{ rows: number; mapping: Mapping }> {
  let mapping: Mapping | null = null;
  let batch: Array<Record<string, string>> = [];
  let rows = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    await client.query(
      `INSERT INTO match_job_rows (job_id, row_no, input)
       SELECT $1, $2::int + n, x FROM unnest($3::jsonb[]) WITH ORDINALITY AS u(x, n)`,
      [job, rows - batch.length, batch.map((b) => JSON.stringify(b))],
    );
    batch = [];
  };
  try {
    for await (const record of records(body, format)) {
      mapping ??= completeMapping(
        asked,
        format === 'csv' ? Object.keys(record) : [...MATCH_FIELDS, ...Object.values(asked)],
      );
      if (++rows > MAX_JOB_ROWS) throw new UploadRefusal('body', `A job holds at most ${MAX_JOB_ROWS} rows.`);
      batch.push(fieldsOf(record, mapping, rows));
      if (batch.length >= INSERT_BATCH) await flush();
    }
  } catch (err) {
    if (err instanceof UploadRefusal) throw err;
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('CSV_'))
      throw new UploadRefusal('body', `Not a CSV file: ${(err as Error).message}`);
    throw err;
  }
  await flush();
  if (rows === 0 || mapping === null) throw new UploadRefusal('body', 'The file holds no rows.');
  return { rows, mapping };
}
