// A worker thread of a snapshot load: turns batches of raw records into COPY text for the tables
// they are copied into (parsing and normalizing are most of a load's CPU).
import { parentPort } from 'node:worker_threads';
import { MalformedRecord } from '../decode.js';
import { parseCorporate, parseEvent } from '../parse.js';
import { copyRow } from './copy.js';
import { entityRow, eventRow, officerRows } from './rows.js';

/** The records of a snapshot file: corporate (entities, officers) or events (events). */
export type SnapshotKind = 'corporate' | 'events';

export interface ParseRequest {
  readonly id: number;
  readonly kind: SnapshotKind;
  /** The batch's lines, back to back. */
  readonly bytes: Uint8Array;
  /** Where each line ends in `bytes`. */
  readonly ends: Int32Array;
  /** Each line's number in its file (for rejects). */
  readonly numbers: Int32Array;
  /** The entity id of the batch's first line; line k gets firstId + k (rejected lines leave gaps). */
  readonly firstId: number;
  readonly sourceDate: string;
}

export interface ParseReply {
  readonly id: number;
  /** COPY text for each table the kind is copied into, in the snapshot unit's order. */
  readonly texts: string[];
  readonly records: number;
  readonly rejects: ReadonlyArray<{ line: number; reason: string }>;
}

/** Appends one line's rows to `texts` (throws MalformedRecord for a line that is not a record). */
const RENDER: Record<SnapshotKind, (line: Buffer, id: number, sourceDate: string, texts: string[]) => void> = {
  corporate(line, id, sourceDate, texts) {
    const r = parseCorporate(line);
    texts[0] += copyRow(entityRow(r, id, sourceDate));
    for (const o of officerRows(r, id)) texts[1] += copyRow(o);
  },
  events(line, _id, sourceDate, texts) {
    texts[0] += copyRow(eventRow(parseEvent(line), sourceDate));
  },
};

const TABLES: Record<SnapshotKind, number> = { corporate: 2, events: 1 };

const port = parentPort!;

port.on('message', (req: ParseRequest) => {
  const buf = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
  const render = RENDER[req.kind];
  const texts = Array.from({ length: TABLES[req.kind] }, () => '');
  let records = 0;
  const rejects: Array<{ line: number; reason: string }> = [];
  let start = 0;
  for (let k = 0; k < req.ends.length; k++) {
    const end = req.ends[k]!;
    const line = buf.subarray(start, end);
    start = end;
    try {
      render(line, req.firstId + k, req.sourceDate, texts);
      records++;
    } catch (err) {
      if (!(err instanceof MalformedRecord)) throw err;
      rejects.push({ line: req.numbers[k]!, reason: err.message });
    }
  }
  const reply: ParseReply = { id: req.id, texts, records, rejects };
  port.postMessage(reply);
});
