// The cursor benchmark's exports (docs/benchmarks.md, "Cursors"): every entity exported as CSV and as Parquet by the
// server's own worker, with seconds, rows a second, the file's size and the server's memory; and, on a server started
// for the export alone, the entity searches of a concurrent load timed before the export and while it runs.
import path from 'node:path';
import type pg from 'pg';
import { projectRoot } from '../src/config/paths.js';
import { percentiles, type Percentiles } from './report.js';
import { log, rssMiB, work } from './setup.js';
import { benchServer } from '../test/support/server-process.js';

/** An export as the API answers it, the fields the bench reads. */
interface ExportView {
  id: string;
  status: string;
  done_rows: number;
  credits: number;
  download: { url: string } | null;
}

/** Polls an export this often, sampling the server's memory each time. */
const EXPORT_POLL_MS = 250;
/** Entity searches the concurrent load asks, taken from the registry's own names. */
const LOAD_NAMES = 500;
/** Clients of the concurrent load, each asking its next search as its last one answers. */
const LOAD_CLIENTS = 4;
/** The load's first searches, on a server just started, are not counted: its caches are cold. */
const WARMUP_MS = 10_000;
/** The load alone this long before the export starts: the figures the export's are compared with. */
const BASELINE_MS = 60_000;

export type ExportFormat = 'csv' | 'parquet';

/** Every entity exported as `format` through the API and its worker: seconds, rows, bytes, the server's RSS. */
export async function exportAll(base: string, key: string, pid: number, format: ExportFormat) {
  const headers = { authorization: `Bearer ${key}` };
  const startRss = await rssMiB(pid);
  let peak = startRss;
  const started = performance.now();
  const created = await fetch(`${base}/v1/exports`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ operation: 'searchEntities', format }),
  });
  if (created.status !== 200) throw new Error(`the export answered ${created.status}: ${await created.text()}`);
  let e = ((await created.json()) as { data: ExportView }).data;
  while (e.status === 'queued' || e.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, EXPORT_POLL_MS));
    peak = Math.max(peak, await rssMiB(pid));
    e = ((await (await fetch(`${base}/v1/exports/${e.id}`, { headers })).json()) as { data: ExportView }).data;
  }
  const seconds = (performance.now() - started) / 1000;
  const file = await fetch(e.download!.url);
  const bytes = (await file.arrayBuffer()).byteLength;
  return {
    format,
    status: e.status,
    rows: e.done_rows,
    seconds: Math.round(seconds * 10) / 10,
    rows_per_second: Math.round(e.done_rows / seconds),
    bytes,
    credits: e.credits,
    server_start_rss_mib: startRss,
    server_peak_rss_mib: peak,
  };
}

/** Entity searches asked by LOAD_CLIENTS clients until stopped: each answer's time, and the answers not 200. */
function searchLoad(base: string, key: string, names: readonly string[]) {
  const ms: number[] = [];
  let failed = 0;
  let next = 0;
  let stopped = false;
  const client = async (): Promise<void> => {
    while (!stopped) {
      const name = names[next++ % names.length]!;
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/entities/search?${new URLSearchParams({ name, limit: '10' })}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await res.arrayBuffer();
      ms.push(performance.now() - t0);
      if (res.status !== 200) failed++;
    }
  };
  const running = Promise.all(Array.from({ length: LOAD_CLIENTS }, client));
  return {
    /** Stops the load; its figures since the last take. */
    take: async (): Promise<{ searches: number; failed: number; ms: Percentiles }> => {
      const taken = { searches: ms.length, failed, ms: percentiles(ms) };
      ms.length = 0;
      failed = 0;
      return taken;
    },
    stop: async (): Promise<void> => {
      stopped = true;
      await running;
    },
  };
}

/**
 * Each format exported on a server of its own, started for it: the search load alone for BASELINE_MS, then the export
 * beside the same load. Its searches' p95 while the export runs over the p95 before it is the target's ratio.
 */
export async function exportsBesideLoad(
  pool: pg.Pool,
  db: { url: string },
  pepper: string,
  key: string,
  formats: readonly ExportFormat[],
  nodeOptions?: string,
) {
  // Two words of a name, as users type them: a typical search, not the cheapest or the dearest.
  const { rows } = await pool.query<{ q: string }>(
    `SELECT array_to_string((regexp_split_to_array(name_core, ' '))[1:2], ' ') AS q
     FROM registry.entities TABLESAMPLE SYSTEM (1) REPEATABLE (42) WHERE name_core <> '' LIMIT $1`,
    [LOAD_NAMES],
  );
  const names = rows.map((r) => r.q);
  const results = [];
  for (const format of formats) {
    const dataDir = path.join(work, `server-export-${format}`);
    const server = await benchServer(projectRoot, db.url, pepper, dataDir, nodeOptions);
    try {
      const load = searchLoad(server.base, key, names);
      await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
      await load.take();
      await new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
      const before = await load.take();
      const exported = await exportAll(server.base, key, server.child.pid!, format);
      const during = await load.take();
      await load.stop();
      const ratio = Math.round((during.ms.p95 / before.ms.p95) * 100) / 100;
      results.push({ ...exported, search_before: before, search_during: during, search_p95_ratio: ratio });
      log(`export of every entity on a server of its own: ${JSON.stringify(results.at(-1))}`);
    } finally {
      server.child.kill('SIGTERM');
    }
  }
  return results;
}
