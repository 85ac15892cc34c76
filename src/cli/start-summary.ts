// What `registry serve` prints once the server listens: on the first start a short summary for a
// newcomer (what was loaded, where the data lives, the demo key, the URL and a first curl to try);
// on later starts one line.
import path from 'node:path';
import type pg from 'pg';
import { PLANS } from '../accounts/catalog.js';
import type { Config } from '../config/index.js';
import type { RunningServer } from '../main/server.js';

const n = (x: number): string => x.toLocaleString('en-US');

/** Two words of a live entity's name: a search the sample certainly answers. */
async function exampleName(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT name FROM registry.entities WHERE status = 'A' ORDER BY document_number LIMIT 1`,
  );
  const words = (rows[0]?.name ?? 'sunshine holdings').replace(/[^A-Za-z0-9 ]/g, '').split(/ +/);
  return words.slice(0, 2).join(' ').toLowerCase();
}

export async function startSummary(server: RunningServer, config: Config): Promise<string> {
  const { sample, demo } = server.firstStart;
  const { url } = server;
  if (!sample && !demo) return `Registry Lookup listening on ${url} (data in ${config.dataDir})`;
  const lines = ['', `Registry Lookup listening on ${url}`, ''];
  if (sample) {
    const d = sample.summary.dataset;
    const t = sample.summary.totals;
    lines.push(
      `  Sample registry  ${n(d.entities)} entities, ${n(d.officers)} officers, ${n(d.events)} events ` +
        `from ${t.files_imported} registry files in ${sample.seconds.toFixed(0)} s`,
      `                   ${t.records_rejected} malformed lines rejected (planted on purpose, to show how)`,
      `                   details: ${sample.logFile}`,
    );
  }
  lines.push(
    `  Data             ${config.dataDir}` +
      `${server.db.embedded ? ' (embedded PostgreSQL; delete it to start over)' : ''}`,
  );
  if (demo) {
    const example = encodeURIComponent(await exampleName(server.db.pool)).replaceAll('%20', '+');
    lines.push(
      `  Demo workspace   ${demo.workspaceId} on the ${PLANS[demo.plan].name} plan`,
      `  API key          ${demo.key}   (shown once: keep it)`,
      '',
      `  API reference    ${url}/v1/openapi.json`,
      '  Try              curl -s \\',
      `                     "${url}/v1/entities/search?name=${example}&limit=3" \\`,
      `                     -H "Authorization: Bearer ${demo.key}"`,
    );
  }
  lines.push(
    '',
    `  Web app          ${url}/  (sign up, keys, usage, billing; without SMTP_URL mails are written under` +
      ` ${path.join(config.dataDir, 'mail')} and their links printed here)`,
  );
  lines.push('', 'Ctrl-C stops the server.');
  return lines.join('\n');
}
