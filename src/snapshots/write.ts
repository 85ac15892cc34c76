// A snapshot's files (docs/contract.md, "Bulk snapshots"): each table of records as gzipped JSON lines and as
// Parquet, both written from one read of it, a batch of rows at a time (memory stays that of a batch, whatever the
// dataset's size), each file hashed (SHA-256) and counted as its bytes are written.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { DOWNLOAD, fileWriter, type FileWriter } from '../exports/formats.js';
import { RECORD_TABLE_NAMES, RECORD_TABLES, type RecordRead, type RecordTable } from '../registry/feed/records.js';
import type { SnapshotFile } from './store.js';

/** Rows read and written together: a Parquet row group and a gzip member each, a few MB of memory. */
const BATCH_ROWS = 10_000;

export const SNAPSHOT_FORMATS = ['jsonl', 'parquet'] as const;
type SnapshotFormat = (typeof SNAPSHOT_FORMATS)[number];

/** A file's name: its table and its format's extension (`entities.jsonl.gz`, `filings.parquet`). */
const fileName = (table: RecordTable, format: SnapshotFormat): string => `${table}.${DOWNLOAD[format].extension}`;

/** Every file name a snapshot has. */
export const FILE_NAMES: readonly string[] = RECORD_TABLE_NAMES.flatMap((t) =>
  SNAPSHOT_FORMATS.map((f) => fileName(t, f)),
);

/** A file being written: its format's writer, and the bytes and hash of what it holds so far. */
interface Output {
  readonly format: SnapshotFormat;
  readonly writer: FileWriter;
  readonly handle: Awaited<ReturnType<typeof open>>;
  readonly hash: ReturnType<typeof createHash>;
  bytes: number;
}

async function append(out: Output, bytes: Buffer): Promise<void> {
  if (bytes.length === 0) return;
  await out.handle.write(bytes);
  out.hash.update(bytes);
  out.bytes += bytes.length;
}

/** Writes one table's files into `dir`; null when `stopping()` said to stop before its end. */
async function writeTable(
  read: RecordRead,
  table: RecordTable,
  dir: string,
  stopping: () => boolean,
): Promise<SnapshotFile[] | null> {
  const columns = RECORD_TABLES[table].columns;
  const outputs: Output[] = [];
  try {
    for (const format of SNAPSHOT_FORMATS)
      outputs.push({
        format,
        writer: fileWriter(format, columns, false),
        handle: await open(path.join(dir, fileName(table, format)), 'w'),
        hash: createHash('sha256'),
        bytes: 0,
      });
    let rows = 0;
    for await (const batch of read.batches(table, BATCH_ROWS)) {
      if (stopping()) return null;
      for (const out of outputs) await append(out, await out.writer.chunk(batch));
      rows += batch.length;
    }
    // An empty table's JSON lines are one empty gzip member: a file of no bytes is not gzip.
    const jsonl = outputs.find((o) => o.format === 'jsonl')!;
    if (rows === 0) await append(jsonl, await jsonl.writer.chunk([]));
    for (const out of outputs) {
      await append(out, await out.writer.end());
      await out.handle.sync();
    }
    return outputs.map((out) => ({
      name: fileName(table, out.format),
      table,
      format: out.format,
      rows,
      bytes: out.bytes,
      sha256: out.hash.digest('hex'),
    }));
  } finally {
    for (const out of outputs) await out.handle.close();
  }
}

/** Writes every table's files into `dir` (which exists, empty); null when stopped before the end. */
export async function writeSnapshotFiles(
  read: RecordRead,
  dir: string,
  stopping: () => boolean,
): Promise<SnapshotFile[] | null> {
  const files: SnapshotFile[] = [];
  for (const table of RECORD_TABLE_NAMES) {
    const written = await writeTable(read, table, dir, stopping);
    if (!written) return null;
    files.push(...written);
  }
  return files;
}
