// The quarterly snapshot: cordata.zip and corevent.zip written in one pass, each entity derived once and
// encoded into both. Member k of each archive holds the same tenth of the entities.
import { join } from 'node:path';
import type { Range } from './batch.js';
import { writeChunks, ZipWriter, type ZipOptions } from './files.js';
import type { DatasetContext } from './model.js';
import { batchSource } from './source.js';

const MEMBERS = 10;
/** Entities per batch from a worker: enough to make its round trip cheap, few enough to keep memory low. */
const WORKER_BATCH = 1024;
/**
 * Entities per batch generated in this thread. zlib hands every 16 KB of compressed output (about 150 KB of
 * records) back to this thread before compressing more, so generation here yields between batches smaller
 * than that, or the compressors starve.
 */
const LOCAL_BATCH = 64;

export interface SnapshotCounts {
  readonly corporate: number;
  readonly events: number;
}

const memberNames = (stem: string): string[] => Array.from({ length: MEMBERS }, (_, k) => `${stem}${k}.txt`);

/** The batches of member m: its tenth of the entities, cut into runs of `batch`. */
function memberRanges(entities: number, m: number, batch: number): Range[] {
  const ranges: Range[] = [];
  const end = Math.floor((entities * (m + 1)) / MEMBERS);
  for (let from = Math.floor((entities * m) / MEMBERS); from < end; from += batch) {
    ranges.push({ from, to: Math.min(end, from + batch) });
  }
  return ranges;
}

export async function writeSnapshot(
  ctx: DatasetContext,
  outDir: string,
  zipOptions: ZipOptions,
  workers: number,
  onProgress: (done: number) => void,
): Promise<SnapshotCounts> {
  const cordata = new ZipWriter(join(outDir, 'cordata.zip'), memberNames('cordata'), zipOptions);
  const corevent = new ZipWriter(join(outDir, 'corevent.zip'), memberNames('corevent'), zipOptions);
  const batch = workers > 0 ? WORKER_BATCH : LOCAL_BATCH;
  const members = Array.from({ length: MEMBERS }, (_, m) => memberRanges(ctx.entities, m, batch));
  const source = batchSource(ctx, members.flat(), workers);
  let events = 0;
  try {
    for (let m = 0; m < MEMBERS; m++) {
      for (const range of members[m]!) {
        const encoded = await source.next();
        await Promise.all([
          writeChunks(cordata.member(m), [encoded.corporate]),
          writeChunks(corevent.member(m), encoded.events),
        ]);
        events += encoded.eventCount;
        onProgress(range.to);
      }
      // The archive moves on to the next member only once this one has ended.
      cordata.member(m).end();
      corevent.member(m).end();
    }
  } finally {
    await source.close();
  }
  await Promise.all([cordata.close(), corevent.close()]);
  return { corporate: ctx.entities, events };
}
