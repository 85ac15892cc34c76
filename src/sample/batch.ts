// The unit of snapshot work: a run of consecutive entities encoded into their corporate lines and event lines,
// done in this thread or in a worker. Entities are pure functions of (seed, index), so either way the bytes agree.
import { CORPORATE_RECORD_BYTES, EVENT_RECORD_BYTES } from '../registry/layout.js';
import { encodeCorporate, EventEncoder } from './encode.js';
import { snapshotEntity } from './entity.js';
import { LineSink } from './files.js';
import type { DatasetContext } from './model.js';

const CORPORATE_LINE = CORPORATE_RECORD_BYTES + 2;
const EVENT_LINE = EVENT_RECORD_BYTES + 2;

/** Entities `from` to `to` (exclusive) of the snapshot. */
export interface Range {
  readonly from: number;
  readonly to: number;
}

/** What a generator worker (worker.ts) is started with. */
export interface WorkerData {
  readonly ctx: DatasetContext;
}

/** A range a worker is asked to encode, and its answer: the encoded lines, handed over without copying. */
export interface BatchRequest extends Range {
  readonly id: number;
}

export interface BatchReply {
  readonly id: number;
  readonly corporate: Uint8Array;
  readonly events: readonly Uint8Array[];
  readonly eventCount: number;
}

export interface EncodedBatch {
  /** CR LF corporate lines, one per entity. */
  readonly corporate: Buffer;
  /** CR LF event lines, in one or more pieces. */
  readonly events: readonly Buffer[];
  readonly eventCount: number;
}

function putCrLf(buf: Buffer, end: number): void {
  buf[end] = 0x0d;
  buf[end + 1] = 0x0a;
}

/** Encodes a range into buffers of its own (so a worker can hand them over without copying). */
export function encodeBatch(ctx: DatasetContext, range: Range): EncodedBatch {
  const count = range.to - range.from;
  const corporate = Buffer.allocUnsafeSlow(count * CORPORATE_LINE);
  // Room for two events an entity on average before a second piece is needed.
  const events = new LineSink(Math.max(count, 1) * EVENT_LINE * 2);
  const encoder = new EventEncoder();
  let eventCount = 0;
  for (let i = range.from; i < range.to; i++) {
    const e = snapshotEntity(ctx, i);
    const at = (i - range.from) * CORPORATE_LINE;
    encodeCorporate(corporate, at, e, false);
    putCrLf(corporate, at + CORPORATE_RECORD_BYTES);
    if (e.history.length > 0) encoder.useRecord(corporate, at);
    for (let k = 0; k < e.history.length; k++) {
      const eat = events.claim(EVENT_LINE);
      encoder.encode(events.buffer, eat, e.history[k]!, k + 1);
      putCrLf(events.buffer, eat + EVENT_RECORD_BYTES);
    }
    eventCount += e.history.length;
  }
  return { corporate, events: events.flush(), eventCount };
}
