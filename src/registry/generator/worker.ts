// A generator worker: encodes the ranges the main thread asks for and hands the buffers back without copying.
import { parentPort, workerData } from 'node:worker_threads';
import { encodeBatch, type Range } from './batch.js';
import type { WorkerBoot } from '../../workers.js';
import type { WorkerData } from './source.js';

export interface BatchRequest extends Range {
  readonly id: number;
}

export interface BatchReply {
  readonly id: number;
  readonly corporate: Uint8Array;
  readonly events: readonly Uint8Array[];
  readonly eventCount: number;
}

const { ctx } = (workerData as WorkerBoot<WorkerData>).data;
const port = parentPort!;

port.on('message', (request: BatchRequest) => {
  const batch = encodeBatch(ctx, request);
  const reply: BatchReply = { id: request.id, ...batch };
  const memory = new Set([batch.corporate.buffer, ...batch.events.map((e) => e.buffer)]);
  port.postMessage(reply, [...memory] as ArrayBuffer[]);
});
