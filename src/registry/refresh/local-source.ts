// A local directory as the source: where an operator's own sync (or a hand copy) drops the files.
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  registryFiles,
  SOURCE_DIRECTORIES,
  type DirectoryEntry,
  type ListedFile,
  type RegistrySource,
  type RemoteStat,
} from './source.js';

const missing = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

export class LocalSource implements RegistrySource {
  constructor(private readonly root: string) {}

  get description(): string {
    return this.root;
  }

  async list(): Promise<ListedFile[]> {
    const info = await stat(this.root).catch((err: unknown) => {
      throw new Error(`${this.root}: ${missing(err) ? 'no such directory' : (err as Error).message}`);
    });
    if (!info.isDirectory()) throw new Error(`${this.root}: not a directory`);
    const entries: DirectoryEntry[] = [];
    for (const sub of SOURCE_DIRECTORIES) {
      const dir = path.join(this.root, sub);
      const names = await readdir(dir).catch((err: unknown) => {
        if (missing(err)) return [];
        throw err;
      });
      for (const name of names.sort()) {
        const full = path.join(dir, name);
        const s = await stat(full).catch(() => null);
        if (s) entries.push({ name, path: full, isFile: s.isFile(), size: s.size, modifiedAt: s.mtime });
      }
    }
    return registryFiles(entries);
  }

  async download(file: ListedFile, dest: string, offset: number): Promise<void> {
    await pipeline(
      createReadStream(file.path, { start: offset, highWaterMark: 1 << 20 }),
      createWriteStream(dest, { flags: 'a' }),
    );
  }

  async stat(file: ListedFile): Promise<RemoteStat | null> {
    const s = await stat(file.path).catch(() => null);
    return s ? { size: s.size, modifiedAt: s.mtime } : null;
  }

  details(): Record<string, string> {
    return {};
  }

  async close(): Promise<void> {}
}
