// Hand-built registry records for tests. Offsets are the spec's own 1-based numbers
// (docs/bulk-files.md), independent of layout.ts, so a wrong offset there cannot hide.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { importFiles } from '../../src/registry/import/index.js';

/** A blank record of `size` bytes with `fields` written at their 1-based start. */
export function record(size: number, fields: Array<[number, string | Buffer]>, filler = 0x20): Buffer {
  const buf = Buffer.alloc(size, 0x20);
  if (size === 1440) buf.fill(filler, 1436);
  for (const [start, value] of fields) {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    bytes.copy(buf, start - 1);
  }
  return buf;
}

export const person = (last: string, first: string, middle = '', suffix = ''): string =>
  last.padEnd(20) + first.padEnd(14) + middle.padEnd(1) + suffix.padEnd(7);

export const slot = (k: number): number => 669 + 128 * (k - 1);

export interface Corp {
  doc: string;
  name: string;
  status?: string;
  type?: string;
  fileDate?: string; // MMDDYYYY
  city?: string;
  /** The principal state and country (blank unless given, as the registry often leaves them). */
  state?: string;
  country?: string;
  zip?: string;
  street?: string;
  agent?: string;
  agentType?: 'P' | 'C';
  agentCity?: string;
  officers?: Array<{ title: string; name: string; type?: 'P' | 'C' }>;
}

export function corporate(c: Corp): Buffer {
  const fields: Array<[number, string]> = [
    [1, c.doc],
    [13, c.name],
    [205, c.status ?? 'A'],
    [206, c.type ?? 'FLAL'],
    [221, c.street ?? '1 MAIN ST'],
    [305, c.city ?? 'MIAMI'],
    [335, c.zip ?? '33101'],
    [473, c.fileDate ?? '01152020'],
    [495, 'N'],
  ];
  if (c.state) fields.push([333, c.state]);
  if (c.country) fields.push([345, c.country]);
  if (c.agent)
    fields.push(
      [545, c.agent],
      [587, c.agentType ?? 'C'],
      [588, '9 AGENT WAY'],
      [630, c.agentCity ?? 'TAMPA'],
      [658, 'FL'],
      [660, '33602'],
    );
  (c.officers ?? []).forEach((o, i) =>
    fields.push([slot(i + 1), o.title], [slot(i + 1) + 4, o.type ?? 'P'], [slot(i + 1) + 5, o.name]),
  );
  return record(1440, fields, 0x00);
}

export interface Ev {
  doc: string;
  seq: number;
  code: string;
  filed: string; // MMDDYYYY
  description?: string;
}

export function event(e: Ev): Buffer {
  return record(662, [
    [1, e.doc],
    [13, String(e.seq).padStart(5, '0')],
    [18, e.code],
    [38, e.description ?? e.code],
    [78, e.filed],
    [86, e.filed],
  ]);
}

/** Lines joined with LF (daily files) or CR LF (snapshot members), each terminated. */
export const fileOf = (lines: Buffer[], crlf = false): Buffer =>
  Buffer.concat(lines.flatMap((l) => [l, Buffer.from(crlf ? '\r\n' : '\n')]));

/** Imports `corps` as one daily corporate file dated 2026-03-09, none rejected. */
export async function importCorps(pool: pg.Pool, corps: readonly Corp[]): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-corps-'));
  try {
    await writeFile(path.join(dir, '20260309c.txt'), fileOf(corps.map(corporate)));
    const summary = await importFiles(pool, [dir]);
    if (summary.totals.records_rejected !== 0) throw new Error(`rejected: ${JSON.stringify(summary.files)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
