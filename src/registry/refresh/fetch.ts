// Downloads one listed file into the download directory: resuming what an interrupted attempt left,
// retrying with a growing wait, and keeping the file only once it has exactly the listed size and
// the source still lists it unchanged.
import { open, readdir, rename, rm, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { ListedFile, RegistrySource } from './source.js';

export interface FetchOptions {
  /** Attempts in all (the first and its retries). */
  readonly attempts: number;
  /** The wait before the first retry; each further retry waits twice as long. */
  readonly retryDelayMs: number;
  readonly log: (line: string) => void;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface Fetched {
  readonly path: string;
  /** Bytes already on disk from an earlier, interrupted download. */
  readonly resumedFrom: number;
  /** Bytes this fetch transferred. */
  readonly downloaded: number;
  readonly attempts: number;
}

/** A download that failed every attempt; `downloaded` and `resumedFrom` say how far it got. */
export class FetchFailed extends Error {
  constructor(
    message: string,
    readonly resumedFrom: number,
    readonly downloaded: number,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'FetchFailed';
  }
}

const sleepFor = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` up to `attempts` times, waiting `delayMs`, then twice that, between tries. */
export async function withRetries<T>(
  what: string,
  opts: FetchOptions,
  work: (attempt: number) => Promise<T>,
): Promise<T> {
  const sleep = opts.sleep ?? sleepFor;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (err) {
      if (attempt >= opts.attempts) throw err;
      const wait = opts.retryDelayMs * 2 ** (attempt - 1);
      opts.log(
        `${what} failed (attempt ${attempt} of ${opts.attempts}): ${(err as Error).message}; ` +
          `retrying in ${Math.round(wait / 1000)} s`,
      );
      await sleep(wait);
    }
  }
}

const sizeOf = async (file: string): Promise<number> => (await stat(file).catch(() => null))?.size ?? 0;

/** The partial download of this listed version of the file: a new version on the source starts afresh. */
export const partName = (f: ListedFile): string =>
  `${f.name}.${f.size}-${Math.floor(f.modifiedAt.getTime() / 1000)}.part`;

async function dropOtherParts(dir: string, file: ListedFile, keep: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name !== keep && name.startsWith(`${file.name}.`) && name.endsWith('.part'))
      await rm(path.join(dir, name), { force: true });
  }
}

/** A daily file ends with the line end of its last record; one that does not was cut short. */
export async function endsWithLineEnd(file: string): Promise<boolean> {
  const size = await sizeOf(file);
  if (size === 0) return true;
  const handle = await open(file, 'r');
  try {
    const { buffer } = await handle.read(Buffer.alloc(1), 0, 1, size - 1);
    return buffer[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

export async function fetchFile(
  source: RegistrySource,
  file: ListedFile,
  dir: string,
  opts: FetchOptions,
): Promise<Fetched> {
  const part = path.join(dir, partName(file));
  const final = path.join(dir, file.name);
  await dropOtherParts(dir, file, path.basename(part));
  await rm(final, { force: true });
  const resumedFrom = Math.min(await sizeOf(part), file.size);
  let used = 0;
  try {
    await withRetries(`downloading ${file.name}`, opts, async (attempt) => {
      used = attempt;
      let have = await sizeOf(part);
      // More than listed: not this version's bytes (or the file grew while it was read); start over.
      if (have > file.size) {
        await truncate(part, 0);
        have = 0;
      }
      if (have > 0 && attempt === 1) opts.log(`${file.name}: resuming at byte ${have} of ${file.size}`);
      if (have < file.size || file.size === 0) await source.download(file, part, have);
      const got = await sizeOf(part);
      if (got !== file.size) throw new Error(`${got} bytes received, the source lists ${file.size}`);
      const now = await source.stat(file);
      if (!now) throw new Error('gone from the source during the download');
      if (now.size !== file.size || now.modifiedAt.getTime() !== file.modifiedAt.getTime()) {
        await rm(part, { force: true });
        throw new Error(`changed on the source during the download (now ${now.size} bytes)`);
      }
    });
  } catch (err) {
    const downloaded = Math.max(0, (await sizeOf(part)) - resumedFrom);
    throw new FetchFailed(
      `${file.name}: download failed after ${used} attempt(s): ${(err as Error).message}`,
      resumedFrom,
      downloaded,
      used,
    );
  }
  await rename(part, final);
  return { path: final, resumedFrom, downloaded: file.size - resumedFrom, attempts: used };
}
