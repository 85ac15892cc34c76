import { InvalidArgumentError, type Command } from 'commander';
import { generateDataset, type GenerateSummary } from '../../sample/index.js';
import { terminalBar } from '../bar.js';
import { printResult, type OutputOptions } from '../output.js';

interface GenerateFlags extends OutputOptions {
  entities: number;
  out: string;
  seed: number;
  days: number;
  endDate?: string;
  workers?: number;
  matchRows: number;
}

/** Match rows by default: enough for a benchmark's figures per kind (docs/benchmarks.md, "Batch matching"). */
const DEFAULT_MATCH_ROWS = 10_000;

function integer(value: string): number {
  const n = Number(value.replaceAll('_', ''));
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('not an integer');
  return n;
}

function human(s: GenerateSummary): string {
  const width = Math.max(...s.files.map((f) => f.name.length));
  const rows = s.files.map(
    (f) =>
      `${f.name.padEnd(width)}  ${f.kind.padEnd(19)}  ${String(f.records).padStart(10)} records  ` +
      `${String(f.bytes).padStart(13)} bytes`,
  );
  const bad = s.malformed_lines.map((m) => `planted malformed line: ${m.file} line ${m.line}: ${m.reason}`);
  return [
    `generated ${s.entities} entities (snapshot ${s.snapshot_date}, last daily file by ${s.end_date}, ` +
      `seed ${s.seed}, ${s.workers} workers) in ${s.out_dir}`,
    ...rows,
    `daily: ${s.daily.new_entities} new entities, ${s.daily.changed_entities} changed, ${s.daily.events} events`,
    ...bad,
    ...(s.match_rows
      ? [
          `${s.match_rows.file}: ${s.match_rows.rows} match rows (` +
            Object.entries(s.match_rows.kinds)
              .map(([kind, n]) => `${kind} ${n}`)
              .join(', ') +
            ')',
        ]
      : []),
    `${(s.elapsed_ms / 1000).toFixed(1)} s, ${s.records_per_second} records/s`,
  ].join('\n');
}

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description('generate realistic, deterministic registry bulk files: a quarterly snapshot and daily files after it')
    .requiredOption('--entities <n>', 'entities in the quarterly snapshot', integer)
    .requiredOption('--out <dir>', 'output directory (created if missing)')
    .option('--seed <s>', 'random seed', integer, 1)
    .option('--days <d>', 'workdays of daily files', integer, 10)
    .option('--end-date <YYYY-MM-DD>', 'date of the last daily file (default today, UTC)')
    .option('--workers <w>', 'worker threads generating the snapshot, 0 for none (default: by size and cores)', integer)
    .option('--match-rows <k>', 'match rows with their truth, 0 for none', integer, DEFAULT_MATCH_ROWS)
    .option('--json', 'print the summary as JSON')
    .action(async (flags: GenerateFlags) => {
      const bar = terminalBar();
      bar.phase('generating records');
      const summary = await generateDataset({
        entities: flags.entities,
        outDir: flags.out,
        seed: flags.seed,
        days: flags.days,
        endDate: flags.endDate,
        workers: flags.workers,
        matchRows: flags.matchRows,
        onProgress: (done, total) => bar.update(done, total),
      }).finally(() => bar.stop());
      printResult(summary, flags, human);
    });
}
