// A worker thread of a snapshot load: turns batches of raw corporate records into COPY text for the
// entities and officers tables (parsing and normalizing are most of a load's CPU).
import { parentPort } from 'node:worker_threads';
import { MalformedRecord } from '../decode.js';
import { parseCorporate } from '../parse.js';
import { copyRow } from './copy.js';
import { entityRow, officerRows } from './rows.js';

export interface ParseRequest {
  readonly id: number;
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
  readonly entities: string;
  readonly officers: string;
  readonly records: number;
  readonly rejects: ReadonlyArray<{ line: number; reason: string }>;
}

const port = parentPort!;

port.on('message', (req: ParseRequest) => {
  const buf = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
  let entities = '';
  let officers = '';
  let records = 0;
  const rejects: Array<{ line: number; reason: string }> = [];
  let start = 0;
  for (let k = 0; k < req.ends.length; k++) {
    const end = req.ends[k]!;
    const line = buf.subarray(start, end);
    start = end;
    try {
      const r = parseCorporate(line);
      const id = req.firstId + k;
      entities += copyRow(entityRow(r, id, req.sourceDate));
      for (const o of officerRows(r, id)) officers += copyRow(o);
      records++;
    } catch (err) {
      if (!(err instanceof MalformedRecord)) throw err;
      rejects.push({ line: req.numbers[k]!, reason: err.message });
    }
  }
  const reply: ParseReply = { id: req.id, entities, officers, records, rejects };
  port.postMessage(reply);
});
