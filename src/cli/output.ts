// One way for every command to answer: JSON for scripts (`--json`), readable lines for people.

export interface OutputOptions {
  json?: boolean;
}

/** Prints a command's result: the object as JSON with `--json`, else the human rendering. */
export function printResult<T>(result: T, opts: OutputOptions, human: (result: T) => string): void {
  process.stdout.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : `${human(result)}\n`);
}

/** Renders `key: value` lines, aligned, for the human form of a flat record. */
export function keyValueLines(record: Record<string, unknown>): string {
  const width = Math.max(0, ...Object.keys(record).map((k) => k.length));
  return Object.entries(record)
    .map(([k, v]) => `${k.padEnd(width)}  ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join('\n');
}
