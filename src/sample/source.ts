// Encoded batches in order, from worker threads (large runs: generation then runs beside compression and
// writing) or from this thread (small runs, where starting workers would cost more than it saves).
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.js';
import {
  encodeBatch,
  type BatchReply,
  type BatchRequest,
  type EncodedBatch,
  type Range,
  type WorkerData,
} from './batch.js';
import type { DatasetContext } from './model.js';

export interface BatchSource {
  /** The next range's batch, in the order the ranges were given. */
  next(): Promise<EncodedBatch>;
  close(): Promise<void>;
}

/** Workers by default: one fewer than the cores (the main thread feeds the archives), none for small runs. */
export function defaultWorkers(entities: number): number {
  return entities < 50_000 ? 0 : Math.max(1, Math.min(8, availableParallelism() - 1));
}

export function batchSource(ctx: DatasetContext, ranges: readonly Range[], workers: number): BatchSource {
  return workers > 0 ? new WorkerSource(ctx, ranges, workers) : new LocalSource(ctx, ranges);
}

class LocalSource implements BatchSource {
  private k = 0;

  constructor(
    private readonly ctx: DatasetContext,
    private readonly ranges: readonly Range[],
  ) {}

  async next(): Promise<EncodedBatch> {
    const range = this.ranges[this.k++];
    if (!range) throw new Error('no more batches');
    // Let pending I/O (zlib's hand-backs above all) run before this thread is busy again.
    await new Promise((resolve) => setImmediate(resolve));
    return encodeBatch(this.ctx, range);
  }

  async close(): Promise<void> {}
}

/** Batches each worker may have queued ahead of the writer: enough to keep it busy, bounded in memory. */
const AHEAD_PER_WORKER = 3;

interface Pending {
  resolve: (batch: EncodedBatch) => void;
  reject: (err: Error) => void;
}

const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

class WorkerSource implements BatchSource {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  private readonly queue: Promise<EncodedBatch>[] = [];
  private dispatched = 0;
  private failure: Error | undefined;

  constructor(
    ctx: DatasetContext,
    private readonly ranges: readonly Range[],
    count: number,
  ) {
    this.workers = Array.from({ length: count }, () => this.start({ ctx }));
    for (let k = 0; k < count * AHEAD_PER_WORKER; k++) this.dispatch();
  }

  next(): Promise<EncodedBatch> {
    const batch = this.queue.shift();
    if (!batch) return Promise.reject(new Error('no more batches'));
    this.dispatch();
    return batch;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private start(data: WorkerData): Worker {
    const worker = startWorker(import.meta.url, 'worker', data);
    worker.on('message', (reply: BatchReply) => this.settle(reply));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`generator worker exited with code ${code}`));
    });
    return worker;
  }

  /** Asks the next range of a worker, round robin, so the batches come back spread over all of them. */
  private dispatch(): void {
    const id = this.dispatched;
    const range = this.ranges[id];
    if (!range) return;
    this.dispatched++;
    const batch = new Promise<EncodedBatch>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.pending.set(id, { resolve, reject });
      const request: BatchRequest = { id, ...range };
      this.workers[id % this.workers.length]!.postMessage(request);
    });
    // A failure reaches the writer through next(); batches queued behind it must not count as unhandled.
    batch.catch(() => undefined);
    this.queue.push(batch);
  }

  private settle(reply: BatchReply): void {
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    waiting?.resolve({
      corporate: asBuffer(reply.corporate),
      events: reply.events.map(asBuffer),
      eventCount: reply.eventCount,
    });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
