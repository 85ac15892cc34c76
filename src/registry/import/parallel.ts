// A snapshot's corporate records parsed on worker threads while this thread reads the zip and
// feeds the COPY streams: on a machine with cores to spare, the load is no longer bound by one.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../workers.js';
import type { CopyWriter } from './copy.js';
import { lineBatches, type Line } from './lines.js';
import type { ParseReply, ParseRequest } from './parse-worker.js';
import type { Progress } from './progress.js';
import { countedChunks, keepReject, type ReadStats } from './read.js';
import type { SourceFile } from './sources.js';

/** Lines per message: large enough that messaging costs little, small enough to keep memory flat. */
const BATCH_LINES = 2000;
/** Batches each worker may hold at once. */
const AHEAD_PER_WORKER = 2;

/**
 * Parse workers to use: one per core. This thread (reading and feeding) and PostgreSQL (taking the
 * rows) need about half a core together, so one worker fewer left part of a core idle on two cores.
 */
export const parseWorkers = (): number => availableParallelism();

function pack(lines: readonly Line[], id: number, firstId: number, sourceDate: string): ParseRequest {
  const size = lines.reduce((n, l) => n + l.bytes.length, 0);
  const bytes = new Uint8Array(size);
  const ends = new Int32Array(lines.length);
  const numbers = new Int32Array(lines.length);
  let at = 0;
  lines.forEach((l, k) => {
    bytes.set(l.bytes, at);
    at += l.bytes.length;
    ends[k] = at;
    numbers[k] = l.number;
  });
  return { id, bytes, ends, numbers, firstId, sourceDate };
}

/** Reads a corporate snapshot into the entities and officers COPY streams, parsing on `workers` threads. */
export async function readCorporateInParallel(
  file: SourceFile,
  [entities, officers]: [CopyWriter, CopyWriter],
  workers: number,
  progress: Progress,
): Promise<ReadStats> {
  const stats: ReadStats = { read: 0, rejected: 0, rejects: [] };
  const pool: Worker[] = Array.from({ length: workers }, () => startWorker(import.meta.url, 'parse-worker', null));
  const waiting = new Map<number, { resolve: (r: ParseReply) => void; reject: (e: Error) => void; where: string }>();
  let failure: Error | null = null;
  const fail = (err: Error): void => {
    failure ??= err;
    for (const w of waiting.values()) w.reject(err);
  };
  for (const w of pool) {
    w.on('message', (reply: ParseReply) => waiting.get(reply.id)?.resolve(reply));
    w.on('error', fail);
    w.on('exit', (code) => code !== 0 && fail(new Error(`parse worker exited with code ${code}`)));
  }

  const inFlight = new Set<Promise<void>>();
  let nextId = 0;
  let lineOrdinal = 0;
  const dispatch = (lines: Line[], where: string): void => {
    const id = nextId++;
    const request = pack(lines, id, lineOrdinal + 1, file.fileDate);
    lineOrdinal += lines.length;
    const done = new Promise<ParseReply>((resolve, reject) => {
      waiting.set(id, { resolve, reject, where });
      pool[id % pool.length]!.postMessage(request, [request.bytes.buffer as ArrayBuffer]);
    }).then(async (reply) => {
      waiting.delete(id);
      entities.writeText(reply.entities, reply.records);
      officers.writeText(reply.officers, 0);
      stats.read += lines.length;
      stats.rejected += reply.rejects.length;
      for (const r of reply.rejects) keepReject(stats, { file: where, line: r.line, reason: r.reason });
      progress.advance(0, lines.length);
      await entities.drained();
      await officers.drained();
    });
    const tracked = done.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  try {
    for await (const member of file.members()) {
      const where = member.name === file.name ? file.name : `${file.name}:${member.name}`;
      let pending: Line[] = [];
      for await (const batch of lineBatches(countedChunks(await member.open(), progress))) {
        // The batch points into a chunk the stream may reuse: copy as it is packed (pack copies).
        pending.push(...batch.map((l) => ({ number: l.number, bytes: l.bytes })));
        if (pending.length >= BATCH_LINES) {
          while (inFlight.size >= workers * AHEAD_PER_WORKER) await Promise.race(inFlight);
          if (failure) throw failure;
          dispatch(pending, where);
          pending = [];
        }
      }
      if (pending.length) dispatch(pending, where);
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
    return stats;
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
