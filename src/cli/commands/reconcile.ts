// Operator commands for reconciliation credentials (docs/reconciliation.md, "The credential"): create one (its token
// and service URL shown once), list a workspace's, revoke one. Each change is in the workspace's audit log.
import type { Command } from 'commander';
import { OPERATOR } from '../../accounts/audit.js';
import { resolvePepper } from '../../accounts/pepper.js';
import {
  createReconcileCredential,
  listReconcileCredentials,
  revokeReconcileCredential,
} from '../../accounts/reconcile-credentials.js';
import { getWorkspace } from '../../accounts/workspaces.js';
import { serviceUrl } from '../../api/reconcile/manifest.js';
import { systemClock } from '../../clock.js';
import { action, json } from './accounts.js';

export function registerReconcile(program: Command): void {
  const reconcile = program
    .command('reconcile')
    .description("credentials of the reconciliation service for OpenRefine, on the workspace's live credits");
  json(reconcile.command('create').description('a new credential: its service URL, shown once'))
    .requiredOption('--workspace <workspace>')
    .option('--name <name>', 'a name to tell it apart')
    .action(
      action(
        async (c, opts: { workspace: string; name?: string }) => {
          await getWorkspace(c.pool, opts.workspace);
          const pepper = await resolvePepper(c.config);
          const made = await createReconcileCredential(
            c.pool,
            opts.workspace,
            opts.name ?? null,
            pepper,
            systemClock,
            OPERATOR,
          );
          return { ...made, service_url: serviceUrl(c.config.billing.publicBaseUrl, made.token) };
        },
        (r) => `${r.id}\nService URL for OpenRefine (shown once, keep it safe): ${r.service_url}`,
      ),
    );
  json(reconcile.command('list').requiredOption('--workspace <workspace>')).action(
    action(
      (c, opts: { workspace: string }) => listReconcileCredentials(c.pool, opts.workspace),
      (rows) =>
        rows
          .map(
            (r) =>
              `${r.id}  ${r.hint}  ${r.name ?? ''}  created ${r.created_at}` +
              `${r.last_used_at ? `  used ${r.last_used_at}` : ''}${r.revoked_at ? `  revoked ${r.revoked_at}` : ''}`,
          )
          .join('\n'),
    ),
  );
  json(reconcile.command('revoke').argument('<credential-id>').description('it fails from its very next call')).action(
    action(async (c, id: string) => {
      const revoked = await revokeReconcileCredential(c.pool, null, id, systemClock, OPERATOR);
      if (!revoked) throw new Error(`no working reconciliation credential ${id}`);
      return revoked;
    }),
  );
}
