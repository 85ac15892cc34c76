// Every command of the `registry` CLI, registered in the order `--help` lists them.
import type { Command } from 'commander';
import { registerAccounts } from './accounts.js';
import { registerBilling } from './billing.js';
import { registerGenerate } from './generate.js';
import { registerImport } from './import.js';
import { registerJobs } from './jobs.js';
import { registerMcp } from './mcp.js';
import { registerMonitoring } from './monitoring.js';
import { registerPrewarm } from './prewarm.js';
import { registerReconcile } from './reconcile.js';
import { registerRefresh } from './refresh.js';
import { registerServe } from './serve.js';
import { registerStatus } from './status.js';
import { registerWorker } from './worker.js';

export const commands: ReadonlyArray<(program: Command) => void> = [
  registerServe,
  registerWorker,
  registerGenerate,
  registerImport,
  registerPrewarm,
  registerStatus,
  registerRefresh,
  registerAccounts,
  registerReconcile,
  registerBilling,
  registerMonitoring,
  registerJobs,
  registerMcp,
];
