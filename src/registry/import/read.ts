// Reads the records of a source file in order, member by member and line by line, handing each
// well-formed record on and reporting each malformed one with its file and line, never stopping.
import { MalformedRecord } from '../decode.js';
import { lines } from './lines.js';
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

async function* counted(stream: AsyncIterable<Buffer>, progress: Progress): AsyncGenerator<Buffer> {
  for await (const chunk of stream) {
    progress.advance(chunk.length, 0);
    yield chunk;
  }
}

export async function readRecords<T>(
  file: SourceFile,
  parse: (line: Buffer) => T,
  onRecord: (record: T, ord: number) => Promise<void>,
  progress: Progress,
): Promise<ReadStats> {
  const stats: ReadStats = { read: 0, rejected: 0, rejects: [] };
  let ord = 0;
  for await (const member of file.members()) {
    const where = member.name === file.name ? file.name : `${file.name}:${member.name}`;
    for await (const { number, bytes } of lines(counted(await member.open(), progress))) {
      stats.read++;
      let record: T;
      try {
        record = parse(bytes);
      } catch (err) {
        if (!(err instanceof MalformedRecord)) throw err;
        stats.rejected++;
        if (stats.rejects.length < KEPT_REJECTS) stats.rejects.push({ file: where, line: number, reason: err.message });
        continue;
      }
      await onRecord(record, ++ord);
      if (ord % 1000 === 0) progress.advance(0, 1000);
    }
  }
  return stats;
}
