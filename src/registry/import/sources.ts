// What an import is given: quarterly zips, loose members of them, daily corporate and event files,
// or directories holding them. Each becomes a SourceFile with its kind and its date.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import { isoDay } from '../../clock.js';
import {
  DAILY_CORPORATE_FILE,
  DAILY_EVENT_FILE,
  QUARTERLY_CORPORATE_MEMBER,
  QUARTERLY_EVENT_MEMBER,
} from '../layout.js';

export type FileKind = 'quarterly_corporate' | 'quarterly_events' | 'daily_corporate' | 'daily_events';

interface Member {
  readonly name: string;
  readonly size: number;
  open(): Promise<Readable>;
}

export interface SourceFile {
  readonly path: string;
  readonly name: string;
  readonly kind: FileKind;
  /** The file's date: from a daily file's name, else the newest member's modification date. */
  readonly fileDate: string;
  readonly size: number;
  /** Uncompressed bytes to read (for progress). */
  readonly contentBytes: number;
  /** A zip is a whole snapshot, swapped in atomically; a loose file is a set of changes. */
  readonly fullLoad: boolean;
  members(): AsyncIterable<Member>;
}

const openZip = promisify<string, yauzl.Options, yauzl.ZipFile>(yauzl.open);

function memberKind(name: string): FileKind | undefined {
  const base = path.basename(name);
  if (QUARTERLY_CORPORATE_MEMBER.test(base)) return 'quarterly_corporate';
  if (QUARTERLY_EVENT_MEMBER.test(base)) return 'quarterly_events';
  return undefined;
}

function dailyKind(name: string): { kind: FileKind; date: string } | undefined {
  for (const [re, kind] of [
    [DAILY_EVENT_FILE, 'daily_events'],
    [DAILY_CORPORATE_FILE, 'daily_corporate'],
  ] as const) {
    const m = re.exec(name);
    if (m) return { kind, date: `${m[1]}-${m[2]}-${m[3]}` };
  }
  return undefined;
}

/** Reads every entry of a zip in order, one at a time, as streams. */
async function* zipMembers(file: string): AsyncGenerator<Member> {
  const zip = await openZip(file, { lazyEntries: true, autoClose: false });
  const openStream = promisify(zip.openReadStream.bind(zip)) as (e: yauzl.Entry) => Promise<Readable>;
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        zip.once('entry', resolve);
        zip.once('end', () => resolve(null));
        zip.once('error', reject);
        zip.readEntry();
      });
      zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
      if (!entry) return;
      if (entry.fileName.endsWith('/')) continue;
      yield { name: entry.fileName, size: entry.uncompressedSize, open: () => openStream(entry) };
    }
  } finally {
    zip.close();
  }
}

async function describeZip(file: string, size: number): Promise<SourceFile> {
  const zip = await openZip(file, { lazyEntries: false, autoClose: true });
  const entries = await new Promise<yauzl.Entry[]>((resolve, reject) => {
    const list: yauzl.Entry[] = [];
    zip.on('entry', (e: yauzl.Entry) => list.push(e));
    zip.on('end', () => resolve(list));
    zip.on('error', reject);
  });
  const files = entries.filter((e) => !e.fileName.endsWith('/'));
  const kinds = new Set(files.map((e) => memberKind(e.fileName)));
  const kind = kinds.size === 1 ? [...kinds][0] : undefined;
  if (!kind)
    throw new Error(`${file}: not a registry quarterly zip (members must all be cordata*.txt or all corevent*.txt)`);
  const newest = files.map((e) => e.getLastModDate({ timezone: 'UTC' })).reduce((a, b) => (a > b ? a : b));
  return {
    path: file,
    name: path.basename(file),
    kind,
    fileDate: isoDay(newest),
    size,
    contentBytes: files.reduce((n, e) => n + e.uncompressedSize, 0),
    fullLoad: true,
    members: () => zipMembers(file),
  };
}

async function describe(file: string): Promise<SourceFile | undefined> {
  const info = await stat(file);
  const name = path.basename(file);
  if (/\.zip$/i.test(name)) return describeZip(file, info.size);
  const daily = dailyKind(name);
  const kind = daily?.kind ?? memberKind(name);
  if (!kind) return undefined;
  return {
    path: file,
    name,
    kind,
    fileDate: daily?.date ?? isoDay(info.mtime),
    size: info.size,
    contentBytes: info.size,
    fullLoad: false,
    async *members() {
      yield { name, size: info.size, open: async () => createReadStream(file, { highWaterMark: 1 << 20 }) };
    },
  };
}

const KIND_ORDER: Record<FileKind, number> = {
  quarterly_corporate: 0,
  quarterly_events: 1,
  daily_corporate: 2,
  daily_events: 3,
};

export interface Discovery {
  readonly files: SourceFile[];
  /** Files inside given directories that are not registry files. */
  readonly ignored: string[];
}

/**
 * Resolves the paths given to an import into registry files ordered by date, snapshots before daily
 * files of the same date and corporate records before their events. A file named explicitly that is
 * not a registry file is an error; inside a directory it is ignored and listed.
 */
export async function discover(paths: readonly string[]): Promise<Discovery> {
  const files: SourceFile[] = [];
  const ignored: string[] = [];
  for (const p of paths) {
    const info = await stat(p).catch(() => {
      throw new Error(`${p}: no such file or directory`);
    });
    if (info.isDirectory()) {
      for (const entry of (await readdir(p)).sort()) {
        const full = path.join(p, entry);
        if (!(await stat(full)).isFile()) continue;
        const found = await describe(full).catch(() => undefined);
        if (found) files.push(found);
        else ignored.push(full);
      }
    } else {
      const found = await describe(p);
      if (!found)
        throw new Error(
          `${p}: not a registry file ` +
            '(expected cordata.zip, corevent.zip, their members, YYYYMMDDc.txt or YYYYMMDDce.txt)',
        );
      files.push(found);
    }
  }
  const unique = [...new Map(files.map((f) => [path.resolve(f.path), f])).values()];
  unique.sort(
    (a, b) =>
      a.fileDate.localeCompare(b.fileDate) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.name.localeCompare(b.name),
  );
  return { files: unique, ignored };
}

/** SHA-256 of a file's bytes, streamed. */
export async function checksum(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 22 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
