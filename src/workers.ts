// Worker threads running one of the project's modules, whether the code runs compiled (dist/*.js)
// or from its TypeScript sources under tsx: a worker does not inherit tsx's loader, so a small
// bootstrap registers it before importing the module.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.loader) (await import(workerData.loader)).register();
  await import(workerData.script);
})().catch((err) => process.nextTick(() => { throw err; }));
`;

export interface WorkerBoot<T> {
  readonly script: string;
  readonly loader?: string;
  /** What the module itself reads from `workerData.data`. */
  readonly data: T;
}

/**
 * Starts the module `name` (without extension) next to `from` (the caller's import.meta.url) in
 * a worker thread, handing it `data` as `workerData.data`.
 */
export function startWorker<T>(from: string, name: string, data: T): Worker {
  const extension = extname(fileURLToPath(from));
  const script = new URL(`./${name}${extension}`, from).href;
  const boot: WorkerBoot<T> =
    extension === '.ts' ? { script, loader: import.meta.resolve('tsx/esm/api'), data } : { script, data };
  return new Worker(BOOTSTRAP, { eval: true, workerData: boot });
}
