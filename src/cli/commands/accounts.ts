// Operator commands: workspaces, keys, credits and request logs.
import type { Command } from 'commander';
import { ledgerCheck } from '../../accounts/ledger.js';
import { refundCheckout } from '../../billing/checkouts.js';
import { sendToProcessor } from '../../billing/overage.js';
import { paymentProvider } from '../../billing/payments.js';
import { cancelSubscription } from '../../billing/subscription.js';
import { OPERATOR } from '../../accounts/audit.js';
import { addKey, revokeKeyAs } from '../../accounts/key-admin.js';
import { resolvePepper } from '../../accounts/pepper.js';
import { findRequestLog } from '../../accounts/request-log.js';
import {
  adjustCredits,
  createWorkspace,
  getWorkspace,
  listKeys,
  revokeKey,
  setPerMinute,
  setPlan,
  setStatus,
  setSuspended,
} from '../../accounts/workspaces.js';
import { systemClock } from '../../clock.js';
import type { Config } from '../../config/index.js';
import type { Database } from '../../db/index.js';
import { withDatabase } from '../context.js';
import { keyValueLines, printResult, type OutputOptions } from '../output.js';

export const json = (c: Command): Command => c.option('--json', 'print as JSON');

export interface Ctx {
  pool: Database['pool'];
  config: Config;
}

/** A command's action (also the monitoring commands'): `work` runs with the database open; its result is printed. */
export function action<A extends unknown[], T>(
  work: (ctx: Ctx, ...args: A) => Promise<T>,
  human: (r: T) => string = (r) => keyValueLines(r as Record<string, unknown>),
) {
  return async (...args: unknown[]): Promise<void> => {
    // commander passes the arguments, then the options object, then the command.
    const opts = args[args.length - 2] as OutputOptions;
    const result = await withDatabase((db, config) => work({ pool: db.pool, config }, ...(args.slice(0, -1) as A)));
    printResult(result, opts, human);
  };
}

export function registerAccounts(program: Command): void {
  const workspace = program.command('workspace').description('create and manage workspaces');
  json(workspace.command('create').description('create a workspace and print its first live key (shown once)'))
    .requiredOption('--plan <plan>', 'free_trial, developer, pro, growth, lead_feed, enterprise or mcp_starter')
    .option('--name <name>', 'a name to recognize it by')
    .action(
      action(
        async (c, opts: { plan: string; name?: string }) =>
          createWorkspace(c.pool, opts, await resolvePepper(c.config), systemClock),
        (r) =>
          `${keyValueLines(r.workspace as unknown as Record<string, unknown>)}\n\n` +
          `API key (shown once, keep it safe): ${r.key.key}`,
      ),
    );
  json(workspace.command('show').argument('<workspace>')).action(action((c, id: string) => getWorkspace(c.pool, id)));
  json(
    workspace.command('suspend').argument('<workspace>').description('every key of the workspace gets 401 at once'),
  ).action(action((c, id: string) => setSuspended(c.pool, id, true)));
  json(workspace.command('unsuspend').argument('<workspace>')).action(
    action((c, id: string) => setSuspended(c.pool, id, false)),
  );
  json(
    workspace
      .command('set-plan')
      .argument('<workspace>')
      .argument('<plan>')
      .description('move to another plan; its allowance starts now'),
  ).action(action((c, id: string, plan: string) => setPlan(c.pool, id, plan, systemClock)));
  json(
    workspace
      .command('set-status')
      .argument('<workspace>')
      .argument('<status>')
      .description('subscription status: active or past_due'),
  ).action(action((c, id: string, status: string) => setStatus(c.pool, id, status)));
  json(
    workspace
      .command('cancel')
      .argument('<workspace>')
      .description('cancel the subscription now: overage stops, a final invoice carries what accrued, no new grants'),
  ).action(
    action(async (c, id: string) => {
      const cancellation = await cancelSubscription(c.pool, id, systemClock.now(), OPERATOR);
      return { ...cancellation, ...(await sendToProcessor(c.pool, paymentProvider(c.config))) };
    }),
  );
  json(
    workspace
      .command('set-rate')
      .argument('<workspace>')
      .argument('<per-minute>')
      .description('per-minute override (enterprise); "none" to clear'),
  ).action(action((c, id: string, rate: string) => setPerMinute(c.pool, id, rate === 'none' ? null : Number(rate))));

  const key = program.command('key').description('create, list and revoke API keys');
  json(key.command('create').description('a new key (shown once)'))
    .requiredOption('--workspace <workspace>')
    .option('--test', 'a test key (svc_test_), on its own monthly pool')
    .action(
      action(
        async (c, opts: { workspace: string; test?: boolean }) => {
          await getWorkspace(c.pool, opts.workspace);
          const pepper = await resolvePepper(c.config);
          const made = await addKey(
            c.pool,
            opts.workspace,
            opts.test ? 'test' : 'live',
            null,
            pepper,
            systemClock,
            OPERATOR,
          );
          const info = (await listKeys(c.pool, opts.workspace)).find((k) => k.id === made.id)!;
          return { ...info, key: made.key };
        },
        (r) => `${r.id} (${r.kind})\nAPI key (shown once, keep it safe): ${r.key}`,
      ),
    );
  json(key.command('list').requiredOption('--workspace <workspace>')).action(
    action(
      (c, opts: { workspace: string }) => listKeys(c.pool, opts.workspace),
      (keys) =>
        keys
          .map(
            (k) =>
              `${k.id}  ${k.kind}  ${k.hint}  created ${k.created_at}` +
              `${k.revoked_at ? `  revoked ${k.revoked_at}` : ''}`,
          )
          .join('\n'),
    ),
  );
  json(key.command('revoke').argument('<key-id>').description('the key fails from its very next request')).action(
    action(async (c, id: string) => {
      // The audit entry goes with the revocation; revokeKey then answers the key as it stands (or that there is none).
      await revokeKeyAs(c.pool, null, id, systemClock, OPERATOR);
      return revokeKey(c.pool, id, systemClock);
    }),
  );

  const credits = program.command('credits').description('credit balances and adjustments');
  json(
    credits
      .command('grant')
      .argument('<workspace>')
      .description('an admin adjustment of the monthly pool (negative takes away)'),
  )
    .requiredOption('--credits <n>', 'credits to add (negative to remove)')
    .option('--reason <reason>', 'why, for the ledger', 'admin adjustment')
    .action(
      action(async (c, id: string, opts: { credits: string; reason: string }) => {
        await adjustCredits(c.pool, id, Number(opts.credits), opts.reason, systemClock);
        return ledgerCheck(c.pool, id);
      }),
    );
  json(
    credits
      .command('refund')
      .argument('<checkout>')
      .description('refund a pack: within 14 days of purchase, at most 10% used (refused otherwise, with the reason)'),
  ).action(action((c, id: string) => refundCheckout(c.pool, paymentProvider(c.config), id, systemClock.now())));
  json(
    credits
      .command('show')
      .argument('<workspace>')
      .description('balances from the ledger and whether the counters agree'),
  ).action(action((c, id: string) => ledgerCheck(c.pool, id)));

  json(program.command('logs').argument('<request-id>').description('the log row of one request')).action(
    action(async (c, id: string) => {
      const row = await findRequestLog(c.pool, id);
      if (!row) throw new Error(`no request ${id} in the logs (they are kept 30 days)`);
      return row;
    }),
  );
}
