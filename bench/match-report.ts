// The batch-matching benchmark's results: bench/results/<label>.json and .md, and the table it prints
// (docs/benchmarks.md, "Batch matching").
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../src/config/paths.js';
import {
  CALL_P95_TARGET_MS,
  CANDIDATES_TARGET,
  PRECISION_TARGET,
  RECALL_TARGET,
  type Figures,
  type Score,
} from './match-score.js';

export interface MatchRun {
  label: string;
  machine: Record<string, unknown>;
  entities: number;
  seed: number;
  rows: number;
  connections: number;
  queries_per_call: number;
  limit: number;
  /** Negatives whose name a registered entity of their city holds (found after the import). */
  negatives_naming_an_entity: number;
  score: Score;
}

const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);

function line(name: string, f: Figures): string {
  const cells = [
    name,
    f.rows,
    f.ambiguous,
    f.failed,
    f.matched,
    f.matched_right,
    pct(f.precision),
    `${f.found}/${f.with_truth} ${pct(f.recall)}`,
    `${f.truth_in_candidates}/${f.with_truth} ${pct(f.candidates_share)}`,
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The figures as a markdown table: each kind, then overall. */
export function table(score: Score): string[] {
  return [
    '| kind | rows | ambiguous | failed | matched | right | precision | recall | truth among candidates |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(score.kinds).map(([kind, f]) => line(kind, f)),
    line('**overall**', score.overall),
  ];
}

/** Writes the run's JSON and markdown; returns their paths. */
export async function writeResults(run: MatchRun): Promise<{ json: string; md: string }> {
  const dir = path.join(projectRoot, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const json = path.join(dir, `${run.label}.json`);
  const md = path.join(dir, `${run.label}.md`);
  const targets = {
    precision: PRECISION_TARGET,
    recall: RECALL_TARGET,
    truth_among_candidates: CANDIDATES_TARGET,
    call_p95_ms: CALL_P95_TARGET_MS,
  };
  await writeFile(json, `${JSON.stringify({ ...run, targets }, null, 2)}\n`);
  const { call_ms: ms, missed } = run.score;
  const lines = [
    `# Batch-matching benchmark: ${run.label}`,
    '',
    `${run.entities} entities (seed ${run.seed}), ${run.rows} match rows, calls of ${run.queries_per_call} queries ` +
      `(limit ${run.limit}) on ${run.connections} connections. Machine: ${JSON.stringify(run.machine)}.`,
    '',
    ...table(run.score),
    '',
    `A call of ${run.queries_per_call} queries: p50 ${ms.p50} ms, p95 ${ms.p95} ms, p99 ${ms.p99} ms, ` +
      `max ${ms.max} ms (target p95 ${CALL_P95_TARGET_MS} ms at 12.6 million entities: ` +
      `${run.score.call_p95_met ? 'met' : 'missed'}).`,
    '',
    `Negatives naming a registered entity of their city: ${run.negatives_naming_an_entity}.`,
    '',
    `Targets: precision ${PRECISION_TARGET}, recall ${RECALL_TARGET}, truth among candidates ${CANDIDATES_TARGET}: ` +
      (missed.length === 0 ? 'all met.' : `missed: ${missed.join('; ')}.`),
    '',
  ];
  await writeFile(md, lines.join('\n'));
  return { json, md };
}
