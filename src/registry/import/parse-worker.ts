// A worker thread of a snapshot load: turns a block of raw lines (whole lines, as the file holds
// them) into COPY text for the record kind's tables, encoded, so that the main thread only hands
// blocks over and writes bytes (parsing, normalizing and encoding are most of a load's CPU).
import { parentPort } from 'node:worker_threads';
import { MalformedRecord } from '../decode.js';
import { parseCorporate, parseEvent } from '../parse.js';
import { copyRow } from './copy.js';
import { LF, isBlank, lineOf } from './lines.js';
import { entityRow, eventRow, isPlainRecord, officerRows } from './rows.js';

/** The record kinds a worker parses, each into the COPY text of its tables (in the unit's order). */
export type RecordKind = 'corporate' | 'events';

export interface ParseRequest {
  readonly id: number;
  readonly kind: RecordKind;
  /** Whole lines, LF-terminated but for a member's unterminated last line. */
  readonly bytes: Uint8Array;
  /** The number in its member of the block's first line (for rejects). */
  readonly firstLine: number;
  /** The entity id of the block's first line; line k gets firstId + k (blank and rejected lines leave gaps). */
  readonly firstId: number;
  readonly sourceDate: string;
}

export interface ParseReply {
  readonly id: number;
  /** Each table's rows as encoded COPY text. */
  readonly tables: Uint8Array[];
  /** Rows of the first table. */
  readonly records: number;
  /** Lines that were not blank. */
  readonly read: number;
  readonly rejects: ReadonlyArray<{ line: number; reason: string }>;
}

/** Appends one record's rows to `texts`; throws MalformedRecord for a line to reject. */
const ROWS: Record<
  RecordKind,
  { tables: number; add(line: Buffer, id: number, sourceDate: string, texts: string[]): void }
> = {
  corporate: {
    tables: 2,
    add(line, id, sourceDate, texts) {
      const r = parseCorporate(line);
      const plain = isPlainRecord(line);
      texts[0] += copyRow(entityRow(r, id, sourceDate), plain);
      for (const o of officerRows(r, id)) texts[1] += copyRow(o, plain);
    },
  },
  events: {
    tables: 1,
    add(line, _id, sourceDate, texts) {
      // Tested plain or not, an event line took the same CPU (11 short fields to escape).
      texts[0] += copyRow(eventRow(parseEvent(line), sourceDate));
    },
  },
};

const encoder = new TextEncoder();
const port = parentPort!;

port.on('message', (req: ParseRequest) => {
  const buf = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
  const kind = ROWS[req.kind];
  const texts = Array.from({ length: kind.tables }, () => '');
  let records = 0;
  let read = 0;
  const rejects: Array<{ line: number; reason: string }> = [];
  for (let start = 0, k = 0; start < buf.length; k++) {
    const nl = buf.indexOf(LF, start);
    const stop = nl === -1 ? buf.length : nl;
    const line = lineOf(buf, start, stop);
    start = stop + 1;
    if (isBlank(line)) continue;
    read++;
    try {
      kind.add(line, req.firstId + k, req.sourceDate, texts);
      records++;
    } catch (err) {
      if (!(err instanceof MalformedRecord)) throw err;
      rejects.push({ line: req.firstLine + k, reason: err.message });
    }
  }
  // Encoded here and moved, not copied: the main thread writes the bytes as they are.
  const tables = texts.map((t) => encoder.encode(t));
  const reply: ParseReply = { id: req.id, tables, records, read, rejects };
  port.postMessage(
    reply,
    tables.map((t) => t.buffer as ArrayBuffer),
  );
});
