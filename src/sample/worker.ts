// A generator worker: encodes the ranges the main thread asks for and hands the buffers back without copying.
import { parentPort, workerData } from 'node:worker_threads';
import { encodeBatch, type BatchReply, type BatchRequest, type WorkerData } from './batch.js';
import type { WorkerBoot } from '../workers.js';

const { ctx } = (workerData as WorkerBoot<WorkerData>).data;
const port = parentPort!;

port.on('message', (request: BatchRequest) => {
  const batch = encodeBatch(ctx, request);
  const reply: BatchReply = { id: request.id, ...batch };
  const memory = new Set([batch.corporate.buffer, ...batch.events.map((e) => e.buffer)]);
  port.postMessage(reply, [...memory] as ArrayBuffer[]);
});
