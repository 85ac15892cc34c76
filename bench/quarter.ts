// The next quarter's snapshot of a generated dataset, for bench/monitoring.ts --quarterly: the snapshot's
// records with the quarter's daily files applied (a document's newest record wins, new ones at the end),
// written as a zip dated the last daily file's day. So it differs from the first as the registry does.
import { createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';
import { lineBatches } from '../src/registry/import/lines.js';
import { discover, type SourceFile } from '../src/registry/import/sources.js';

/** A record's key: the document number (12 bytes), and an event's sequence (5 more). */
const KEY_BYTES = { quarterly_corporate: 12, quarterly_events: 17 } as const;
const DAILY_OF = { quarterly_corporate: 'daily_corporate', quarterly_events: 'daily_events' } as const;

async function* records(file: SourceFile): AsyncGenerator<Buffer> {
  for await (const member of file.members())
    for await (const batch of lineBatches(await member.open())) for (const l of batch) yield Buffer.from(l.bytes);
}

/**
 * Writes `out` (a zip with one member, `member`) from the snapshot `zip` and the daily files in `dailies`;
 * returns the document numbers the daily files changed or added.
 */
export async function nextQuarter(
  zip: string,
  dailies: string[],
  member: string,
  out: string,
  date: string,
): Promise<Set<string>> {
  const [snapshot] = (await discover([zip])).files;
  const kind = snapshot!.kind as keyof typeof KEY_BYTES;
  const keyBytes = KEY_BYTES[kind];
  const newer = new Map<string, Buffer>();
  for (const f of (await discover(dailies)).files.filter((d) => d.kind === DAILY_OF[kind]))
    for await (const r of records(f)) newer.set(r.subarray(0, keyBytes).toString('latin1'), r);
  const changed = new Set([...newer.keys()].map((k) => k.slice(0, 12)));
  const content = new PassThrough();
  const archive = new yazl.ZipFile();
  archive.addReadStream(content, member, { mtime: new Date(`${date}T12:00:00`) });
  archive.end();
  const written = finished(archive.outputStream.pipe(createWriteStream(out)));
  const put = async (r: Buffer): Promise<void> => {
    if (!content.write(Buffer.concat([r, Buffer.from('\r\n')])))
      await new Promise((resolve) => content.once('drain', resolve));
  };
  for await (const r of records(snapshot!)) {
    const key = r.subarray(0, keyBytes).toString('latin1');
    await put(newer.get(key) ?? r);
    newer.delete(key);
  }
  for (const r of newer.values()) await put(r);
  content.end();
  await written;
  return changed;
}
