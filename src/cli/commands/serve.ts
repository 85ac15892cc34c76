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
      process.once('SIGINT', () => shutdown('SIGINT'));
      process.once('SIGTERM', () => shutdown('SIGTERM'));
    });
}
