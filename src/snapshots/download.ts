// A snapshot's file as it is downloaded (docs/contract.md, "Bulk snapshots"): only a file its completed snapshot's
// manifest lists, read from the snapshot's directory.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { DOWNLOAD } from '../exports/formats.js';
import { getSnapshot, type SnapshotFile } from './store.js';

export interface SnapshotDownload {
  readonly path: string;
  readonly file: SnapshotFile;
  readonly contentType: string;
}

/** The file `name` of completed snapshot `id`, or null when it has none (no such snapshot, or no longer kept). */
export async function snapshotFile(
  pool: pg.Pool,
  dir: string,
  id: string,
  name: string,
): Promise<SnapshotDownload | null> {
  const snapshot = await getSnapshot(pool, id);
  const file = snapshot?.files.find((f) => f.name === name);
  if (!file) return null;
  const at = path.join(dir, id, name);
  const found = await stat(at).catch(() => null);
  // Its manifest's size, or not this file (a directory another instance holds, or one half purged).
  if (found?.size !== file.bytes) return null;
  return { path: at, file, contentType: DOWNLOAD[file.format].contentType };
}
