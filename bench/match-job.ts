// The job side of the batch-matching benchmark (docs/benchmarks.md, "Batch matching", `--job`): the same rows
// uploaded as one match job, timed from the upload to its end, the server's peak RSS sampled meanwhile, and each
// row's verdict read back from the results, as the calls' are.
import { rssMiB } from './setup.js';
import { stringify } from 'csv-stringify/sync';
import type { MatchRow } from '../src/sample/match-rows.js';
import type { Answer } from './match-score.js';

/** How often the job's progress and the server's RSS are read. */
const POLL_MS = 500;

export interface JobRun {
  seconds: number;
  rows_per_second: number;
  peak_rss_mib: number;
  status: string;
  answers: Answer[];
}

export async function runJob(base: string, key: string, rows: readonly MatchRow[], pid: number): Promise<JobRun> {
  const headers = { authorization: `Bearer ${key}` };
  const columns = ['reference', 'name', 'city', 'zip', 'address', 'officer'] as const;
  const csv = stringify([columns, ...rows.map((r) => columns.map((c) => r[c]))]);
  let peak = await rssMiB(pid);
  const started = performance.now();
  const created = await fetch(`${base}/v1/match/jobs?name=name`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'text/csv' },
    body: csv,
  });
  if (created.status !== 202) throw new Error(`the upload answered ${created.status}: ${await created.text()}`);
  const { id } = ((await created.json()) as { data: { id: string } }).data;
  let status = 'queued';
  while (status === 'queued' || status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    peak = Math.max(peak, await rssMiB(pid));
    const res = await fetch(`${base}/v1/match/jobs/${id}`, { headers });
    status = ((await res.json()) as { data: { status: string } }).data.status;
  }
  const seconds = (performance.now() - started) / 1000;
  const results = await fetch(`${base}/v1/match/jobs/${id}/results?format=jsonl`, { headers });
  const byRef = new Map<string, Answer>();
  for (const line of (await results.text()).split('\n')) {
    if (line === '') continue;
    const r = JSON.parse(line) as {
      input: { reference: string };
      result: { match: boolean; candidate: { document_number: string } | null } | null;
    };
    const best = r.result?.candidate?.document_number ?? null;
    byRef.set(
      r.input.reference,
      r.result ? { match: r.result.match ? best : null, candidates: best ? [best] : [] } : null,
    );
  }
  return {
    seconds: Math.round(seconds * 10) / 10,
    rows_per_second: Math.round(rows.length / seconds),
    peak_rss_mib: peak,
    status,
    answers: rows.map((r) => byRef.get(r.reference) ?? null),
  };
}
