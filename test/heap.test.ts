// The service's heap (docs/operations.md, "Memory"): the start scripts give Node package.json's options, those options
// give V8 a limit the service chose, and a process started without one is told so.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { heapLine, serviceNodeOptions } from '../src/config/heap.js';
import { projectRoot } from '../src/config/paths.js';

const heapLimitWith = async (args: readonly string[]): Promise<number> => {
  const { stdout } = await promisify(execFile)(process.execPath, [
    ...args,
    '-e',
    "process.stdout.write(String(require('node:v8').getHeapStatistics().heap_size_limit))",
  ]);
  return Number(stdout);
};

describe('the service heap', () => {
  it('is limited by the options the start scripts pass, and unlimited Node is told how to start', async () => {
    const options = serviceNodeOptions();
    assert.ok(options.some((o) => o.startsWith('--max-old-space-size=')));
    const chosen = await heapLimitWith(options);
    assert.equal(heapLine(chosen), null);
    const own = await heapLimitWith([]);
    assert.ok(own > chosen, `V8's own limit ${own} is above the chosen ${chosen}`);
    const line = heapLine(own);
    assert.match(line ?? '', new RegExp(`heap limit is ${Math.round(own / 2 ** 20)} MiB`));
    assert.ok(line!.includes(`node ${options.join(' ')} dist/cli/main.js`));
  });

  it('is what npm start and npm run worker give the serve and worker commands', async () => {
    const pkg = JSON.parse(await readFile(path.join(projectRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const [script, command] of [
      ['start', 'serve'],
      ['worker', 'worker'],
    ] as const)
      assert.match(
        pkg.scripts[script]!,
        new RegExp(`&& node \\$npm_package_config_service_node_options dist/cli/main\\.js ${command}$`),
      );
  });
});
