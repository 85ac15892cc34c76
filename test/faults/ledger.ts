// The fault suite's checks, read from the ledger and the request log against what the clients received
// (docs/contract.md, "What a client can rely on"): (a) never more served than a workspace had, (b) every charge
// with its log row and usage and every charged log row with its charge, (e) every answer received charged.
import type pg from 'pg';
import { ledgerCheck } from '../../src/accounts/ledger.js';
import type { Received } from './load.js';

/** Net charges by request id (a charge less its refund), with the request's log row. */
export async function charges(
  pool: pg.Pool,
  workspaces: readonly string[],
): Promise<Map<string, { workspace: string; net: number; logged: number | null; status: number | null }>> {
  const { rows } = await pool.query<{
    request_id: string;
    workspace_id: string;
    net: number;
    logged: number | null;
    status: number | null;
  }>(
    `SELECT c.request_id, c.workspace_id, (count(*) - count(r.id))::int AS net, min(l.credits) AS logged,
            min(l.status) AS status
     FROM credit_ledger c
     LEFT JOIN credit_ledger r ON r.reverses = c.id
     LEFT JOIN request_logs l ON l.request_id = c.request_id
     WHERE c.workspace_id = ANY($1) AND c.amount = -1 AND c.kind IN ('consumption', 'overage')
     GROUP BY c.request_id, c.workspace_id`,
    [workspaces],
  );
  return new Map(
    rows.map((r) => [r.request_id, { workspace: r.workspace_id, net: r.net, logged: r.logged, status: r.status }]),
  );
}

/** Every failed invariant, worded; empty when all hold. */
export async function invariantFailures(
  pool: pg.Pool,
  workspaces: ReadonlyArray<{ id: string; exactly: number | null }>,
  received: readonly Received[],
): Promise<string[]> {
  const failures: string[] = [];
  const ids = workspaces.map((w) => w.id);
  const net = await charges(pool, ids);
  for (const w of workspaces) {
    const check = await ledgerCheck(pool, w.id);
    if (!check.consistent) failures.push(`${w.id}: the balances differ from the ledger's sums`);
    if (w.exactly === null) continue;
    const served = received.filter((r) => r.workspaceId === w.id && r.charged).length;
    const billed = [...net.values()].filter((c) => c.workspace === w.id).reduce((n, c) => n + c.net, 0);
    if (served > w.exactly) failures.push(`(a) ${w.id} had ${w.exactly} credits and was served ${served} answers`);
    if (billed > w.exactly) failures.push(`(a) ${w.id} had ${w.exactly} credits and was charged ${billed}`);
  }
  for (const [id, c] of net) {
    if (c.net > 1) failures.push(`${id} charged ${c.net} times`);
    if (c.net > 0 && c.logged !== c.net) failures.push(`(b) ${id} charged ${c.net} with log row credits ${c.logged}`);
  }
  const { rows: logged } = await pool.query<{ request_id: string; credits: number }>(
    'SELECT request_id, credits FROM request_logs WHERE workspace_id = ANY($1) AND credits > 0',
    [ids],
  );
  for (const l of logged)
    if ((net.get(l.request_id)?.net ?? 0) !== l.credits)
      failures.push(`(b) ${l.request_id} logged ${l.credits} credits, charged ${net.get(l.request_id)?.net ?? 0}`);
  const { rows: usage } = await pool.query<{ workspace_id: string; used: number }>(
    'SELECT workspace_id, sum(rest + mcp)::int AS used FROM usage_days WHERE workspace_id = ANY($1) GROUP BY 1',
    [ids],
  );
  for (const w of ids) {
    const used = usage.find((u) => u.workspace_id === w)?.used ?? 0;
    const billed = [...net.values()].filter((c) => c.workspace === w).reduce((n, c) => n + c.net, 0);
    if (used !== billed) failures.push(`(b) ${w}: daily usage ${used}, charges ${billed}`);
  }
  const { rows: held } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM credit_reservations');
  if (held[0]!.n > 0) failures.push(`(d) ${held[0]!.n} credits still held at the end`);
  return failures;
}

/** Answers received as charged whose request holds no charge (served unbilled). */
export function servedUnbilled(received: readonly Received[], net: ReadonlyMap<string, { net: number }>): Received[] {
  return received.filter((r) => r.charged && (net.get(r.requestId)?.net ?? 0) !== 1);
}
