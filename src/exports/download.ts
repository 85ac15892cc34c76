// An export's file as it is downloaded (docs/exports.md, "Downloading"): its parts in order, read one at a time, so
// a file of any size passes through the server in pieces of a chunk's size.
import type pg from 'pg';
import { DOWNLOAD, type Format } from './formats.js';

export interface Download {
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: number;
  readonly parts: AsyncIterable<Buffer>;
}

/** A completed export's file, or null when there is none (no such export, or not completed). */
export async function exportFile(pool: pg.Pool, id: string): Promise<Download | null> {
  const { rows } = await pool.query<{ format: Format; parts: number; bytes: string }>(
    `SELECT format, parts, bytes FROM exports WHERE id = $1 AND status = 'completed'`,
    [id],
  );
  const found = rows[0];
  if (!found) return null;
  async function* parts(): AsyncIterable<Buffer> {
    for (let part = 0; part < found!.parts; part++) {
      const { rows: data } = await pool.query<{ data: Buffer }>(
        'SELECT data FROM export_parts WHERE export_id = $1 AND part = $2',
        [id, part],
      );
      yield data[0]!.data;
    }
  }
  const { extension, contentType } = DOWNLOAD[found.format];
  return { filename: `${id}.${extension}`, contentType, bytes: Number(found.bytes), parts: parts() };
}
