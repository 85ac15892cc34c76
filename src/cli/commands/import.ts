import type { Command } from 'commander';
import { importRegistry } from '../../main/importer.js';
import type { ImportSummary } from '../../registry/import/index.js';
import { createProgress } from '../../registry/import/progress.js';
import { logLine, withDatabase } from '../context.js';
import { printResult, type OutputOptions } from '../output.js';

function human(s: ImportSummary): string {
  const rows = s.files.map(
    (f) =>
      `${f.status === 'imported' ? 'imported' : 'skipped '}  ${f.file_date}  ${f.kind.padEnd(19)}  ` +
      `read ${f.records_read}, loaded ${f.records_loaded}, updated ${f.records_updated}, ` +
      `older ${f.records_skipped_older}, rejected ${f.records_rejected}  ${f.file}`,
  );
  const t = s.totals;
  return [
    ...rows,
    ...s.ignored.map((i) => `ignored   ${i}`),
    `total: ${t.files_imported} files imported; ${t.records_read} records read, ${t.records_loaded} loaded, ` +
      `${t.records_updated} updated, ${t.records_skipped_older} older than stored, ${t.records_rejected} rejected`,
    `dataset: ${s.dataset.entities} entities, ${s.dataset.officers} officers, ${s.dataset.events} events, ` +
      `${s.dataset.agents} agents (version ${s.dataset.version})`,
  ].join('\n');
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      'import registry files (quarterly zips, their members, daily files, or directories of them), oldest first',
    )
    .argument('<paths...>', 'files or directories')
    .option('--json', 'print the summary as JSON')
    .action(async (paths: string[], opts: OutputOptions) => {
      const summary = await withDatabase((db) =>
        importRegistry(db.pool, paths, { progress: createProgress(logLine), log: logLine }),
      );
      printResult(summary, opts, human);
    });
}
