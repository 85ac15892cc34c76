// A snapshot's records parsed on worker threads while this thread reads the zip and feeds the COPY
// streams: on a machine with cores to spare, the load is no longer bound by one. This thread only
// cuts the inflated bytes into blocks of whole lines and writes back the encoded rows, in order.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../workers.js';
import type { CopyWriter } from './copy.js';
import { LF } from './lines.js';
import type { ParseReply, ParseRequest, RecordKind } from './parse-worker.js';
import type { Progress } from './progress.js';
import { countedChunks, keepReject, type ReadStats } from './read.js';
import type { SourceFile } from './sources.js';

/** Bytes of lines per block: large enough that messaging costs little, small enough to keep memory flat. */
const BLOCK_BYTES = 2 << 20;
/** Blocks each worker may hold at once. */
const AHEAD_PER_WORKER = 2;

/**
 * Parse workers to use: one per core. This thread (reading and feeding) and PostgreSQL (taking the
 * rows) need about half a core together, so one worker fewer left part of a core idle on two cores.
 */
export const parseWorkers = (): number => availableParallelism();

/** Lines in `bytes`: its LFs, and an unterminated last line. */
function lineCount(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) n++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== LF ? n + 1 : n;
}

/** `parts` as one block in memory of its own, to be moved to a worker (never a slice of Node's shared pool). */
function block(parts: readonly Uint8Array[], size: number): Uint8Array {
  const joined = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  return joined;
}

/** Reads a snapshot of `kind` into its COPY streams (`writers`, in its tables' order), parsing on `workers` threads. */
export async function readInParallel(
  file: SourceFile,
  kind: RecordKind,
  writers: CopyWriter[],
  workers: number,
  progress: Progress,
): Promise<ReadStats> {
  const stats: ReadStats = { read: 0, rejected: 0, rejects: [] };
  const pool: Worker[] = Array.from({ length: workers }, () => startWorker(import.meta.url, 'parse-worker', null));
  const waiting = new Map<number, { resolve: (r: ParseReply) => void; reject: (e: Error) => void }>();
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

  // Replies are written in the blocks' order: a snapshot's repeated key keeps its last line.
  let written: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();
  let nextId = 0;
  let lineOrdinal = 0;
  const dispatch = (bytes: Uint8Array, lines: number, firstLine: number, where: string): void => {
    const id = nextId++;
    const request: ParseRequest = { id, kind, bytes, firstLine, firstId: lineOrdinal + 1, sourceDate: file.fileDate };
    lineOrdinal += lines;
    const parsed = new Promise<ParseReply>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      pool[id % pool.length]!.postMessage(request, [bytes.buffer as ArrayBuffer]);
    });
    // A failure reaches the caller through `written` (and `failure`), not as an unhandled rejection.
    parsed.catch(() => {});
    written = written.then(async () => {
      const reply = await parsed;
      waiting.delete(id);
      reply.tables.forEach((t, i) => writers[i]!.writeBytes(t, i === 0 ? reply.records : 0));
      stats.read += reply.read;
      stats.rejected += reply.rejects.length;
      for (const r of reply.rejects) keepReject(stats, { file: where, line: r.line, reason: r.reason });
      progress.advance(0, lines);
      for (const w of writers) await w.drained();
    });
    const tracked = written.finally(() => inFlight.delete(tracked));
    tracked.catch(() => {});
    inFlight.add(tracked);
  };

  try {
    for await (const member of file.members()) {
      const where = member.name === file.name ? file.name : `${file.name}:${member.name}`;
      let pending: Buffer[] = [];
      let size = 0;
      let memberLine = 1;
      const send = (bytes: Uint8Array): void => {
        const lines = lineCount(bytes);
        dispatch(bytes, lines, memberLine, where);
        memberLine += lines;
      };
      for await (const chunk of countedChunks(await member.open(), progress)) {
        pending.push(chunk);
        size += chunk.length;
        if (size < BLOCK_BYTES) continue;
        // Cut after the block's last whole line; the rest waits for the next.
        const joined = block(pending, size);
        const cut = joined.lastIndexOf(LF) + 1;
        const rest = Buffer.from(joined.subarray(cut));
        pending = rest.length ? [rest] : [];
        size = rest.length;
        if (cut === 0) continue;
        while (inFlight.size >= workers * AHEAD_PER_WORKER) await Promise.race(inFlight);
        if (failure) throw failure;
        send(joined.subarray(0, cut));
      }
      if (size > 0) send(block(pending, size));
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
    return stats;
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
