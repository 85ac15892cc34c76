// Reads the records of a source file in order, member by member and line by line, handing each
// well-formed record on and reporting each malformed one with its file and line, never stopping.
import { MalformedRecord } from '../decode.js';
import { lineBatches } from './lines.js';
import type { Progress } from './progress.js';
import type { SourceFile } from './sources.js';

export interface Reject {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
}

export interface ReadStats {
  read: number;
  rejected: number;
  /** The first rejects, with file and line (the count above is the whole). */
  rejects: Reject[];
}

const KEPT_REJECTS = 1000;

/** Counts a reject; keeps its detail among the first ones. */
export function keepReject(stats: ReadStats, reject: Reject): void {
  if (stats.rejects.length < KEPT_REJECTS) stats.rejects.push(reject);
}

/** The chunks of a stream, their bytes counted as progress. */
export async function* countedChunks(stream: AsyncIterable<Buffer>, progress: Progress): AsyncGenerator<Buffer> {
  for await (const chunk of stream) {
    progress.advance(chunk.length, 0);
    yield chunk;
  }
}

/**
 * Parses every line of `file`, handing each record to `onRecord` (synchronously, in order) and
 * awaiting `afterBatch` between batches: where writers wait for their streams to drain.
 */
export async function readRecords<T>(
  file: SourceFile,
  parse: (line: Buffer) => T,
  onRecord: (record: T, ord: number) => void,
  afterBatch: () => Promise<void>,
  progress: Progress,
): Promise<ReadStats> {
  const stats: ReadStats = { read: 0, rejected: 0, rejects: [] };
  let ord = 0;
  for await (const member of file.members()) {
    const where = member.name === file.name ? file.name : `${file.name}:${member.name}`;
    for await (const batch of lineBatches(countedChunks(await member.open(), progress))) {
      for (const { number, bytes } of batch) {
        stats.read++;
        let record: T;
        try {
          record = parse(bytes);
        } catch (err) {
          if (!(err instanceof MalformedRecord)) throw err;
          stats.rejected++;
          keepReject(stats, { file: where, line: number, reason: err.message });
          continue;
        }
        onRecord(record, ++ord);
      }
      progress.advance(0, batch.length);
      await afterBatch();
    }
  }
  return stats;
}
