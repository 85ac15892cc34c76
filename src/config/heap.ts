// The heap a service process runs with (docs/operations.md, "Memory"). V8 sizes its heap from the machine's memory
// and lets it grow lazily toward that: a process writing an export beside a search load held 409 to 515 MiB, most of
// it garbage. The start scripts (`npm start`, `npm run worker`) give Node package.json's `service_node_options`, a
// limit that makes it collect sooner; a service started without a limit of its own is told so at start.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { projectRoot } from './paths.js';

/** The Node options of the service's start scripts, as package.json's `config.service_node_options` holds them. */
export function serviceNodeOptions(root = projectRoot): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    config?: { service_node_options?: string };
  };
  return pkg.config?.service_node_options?.split(/\s+/).filter(Boolean) ?? [];
}

/** A heap limit above this was not chosen for the service: it is V8's own, 2 to 4 GiB from the machine's memory. */
const UNCHOSEN_HEAP_MIB = 1024;

/** The line for the operator when this process runs with V8's own heap limit (null: a limit was chosen). */
export function heapLine(limitBytes = v8.getHeapStatistics().heap_size_limit): string | null {
  const mib = Math.round(limitBytes / 2 ** 20);
  if (mib <= UNCHOSEN_HEAP_MIB) return null;
  return (
    `Node's heap limit is ${mib} MiB, its own default: a long export or match job grows the process by hundreds of ` +
    `MiB of garbage. Start it with npm start (or npm run worker), or as node ${serviceNodeOptions().join(' ')} ` +
    'dist/cli/main.js (docs/operations.md, "Memory").'
  );
}
