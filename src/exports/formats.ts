// An export's file, written a chunk of rows at a time (docs/exports.md, "Formats"): CSV and JSON lines as one gzip
// member a chunk (members one after another are one gzip file to every reader), so a chunk's bytes are final when it
// is committed; Parquet through hyparquet-writer, a row group a chunk, its footer written at the end.
import { gzipSync } from 'node:zlib';
import { stringify } from 'csv-stringify/sync';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';

export const FORMATS = ['csv', 'jsonl', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * A column of the file: its name, and the type of its values (null allowed in all). `json`: a list or object,
 * as JSON in JSON lines and a JSON column in Parquet (the bulk snapshots' lists, docs/contract.md).
 */
export interface Column {
  readonly name: string;
  readonly type: 'string' | 'number' | 'boolean' | 'json';
}

export type Row = Readonly<Record<string, unknown>>;

export interface FileWriter {
  /** The bytes of a chunk of rows (the first chunk's CSV begins with the header). */
  chunk(rows: readonly Row[]): Promise<Buffer>;
  /** The bytes that end the file (Parquet's footer; none for the others). */
  end(): Promise<Buffer>;
}

/** How each format is downloaded. */
export const DOWNLOAD: Record<Format, { extension: string; contentType: string }> = {
  csv: { extension: 'csv.gz', contentType: 'application/gzip' },
  jsonl: { extension: 'jsonl.gz', contentType: 'application/gzip' },
  parquet: { extension: 'parquet', contentType: 'application/vnd.apache.parquet' },
};

/** A writer for `format`; `resumed` when earlier chunks are already written (no CSV header again). */
export function fileWriter(format: Format, columns: readonly Column[], resumed: boolean): FileWriter {
  if (format === 'parquet') return parquetWriter(columns);
  let header = format === 'csv' && !resumed;
  const names = columns.map((c) => c.name);
  const text = (rows: readonly Row[]): string =>
    format === 'csv'
      ? stringify(
          rows.map((r) => names.map((n) => r[n] ?? '')),
          { header, columns: names, record_delimiter: '\r\n', cast: { boolean: (b) => String(b) } },
        )
      : rows.map((r) => `${JSON.stringify(Object.fromEntries(names.map((n) => [n, r[n] ?? null])))}\n`).join('');
  return {
    async chunk(rows) {
      const bytes = gzipSync(text(rows));
      header = false;
      return bytes;
    },
    end: async () => Buffer.alloc(0),
  };
}

/** The writer's bytes since the last drain, and the writer emptied (its offset keeps counting the file). */
function drain(w: ByteWriter): Buffer {
  const bytes = Buffer.from(w.getBytes());
  w.index = 0;
  return bytes;
}

const PARQUET_TYPES = { string: 'STRING', number: 'DOUBLE', boolean: 'BOOLEAN', json: 'JSON' } as const;

function parquetWriter(columns: readonly Column[]): FileWriter {
  const bytes = new ByteWriter();
  const writer = new ParquetWriter({
    writer: bytes,
    schema: [
      { name: 'root', num_children: columns.length },
      ...columns.map((c) => ({
        name: c.name,
        ...(c.type === 'string' ? { type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const } : {}),
        ...(c.type === 'number' ? { type: 'DOUBLE' as const } : {}),
        ...(c.type === 'boolean' ? { type: 'BOOLEAN' as const } : {}),
        ...(c.type === 'json' ? { type: 'BYTE_ARRAY' as const, converted_type: 'JSON' as const } : {}),
        repetition_type: 'OPTIONAL' as const,
      })),
    ],
  });
  return {
    async chunk(rows) {
      const columnData = columns.map((c) => ({
        name: c.name,
        data: rows.map((r) => r[c.name] ?? null),
        type: PARQUET_TYPES[c.type],
      }));
      await writer.write({ columnData, rowGroupSize: Math.max(1, rows.length) });
      return drain(bytes);
    },
    async end() {
      await writer.finish();
      return drain(bytes);
    },
  };
}
