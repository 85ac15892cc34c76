// Operator commands for a workspace's monitoring (docs/webhooks.md, "CLI"): webhook endpoints and their
// delivery log, watches, saved searches, events and replays. Each input is checked by its REST operation's
// schema and goes to the same store functions, under the workspace's plan limits.
import type { Command } from 'commander';
import { OPERATOR } from '../../accounts/audit.js';
import { getWorkspace } from '../../accounts/workspaces.js';
import { checkInput } from '../../api/operations/monitoring-input.js';
import * as watchOps from '../../api/operations/watches.js';
import * as hookOps from '../../api/operations/webhooks.js';
import { listAttempts } from '../../monitoring/log.js';
import * as store from '../../monitoring/store.js';
import * as eventLog from '../../monitoring/event-log.js';
import { keyValueLines } from '../output.js';
import { action, json, type Ctx } from './accounts.js';

interface WorkspaceOpt {
  workspace: string;
}
interface PageOpts extends WorkspaceOpt {
  limit?: string;
  offset?: string;
}

/** The workspace's plan; a mistyped workspace is refused ("no workspace ...") rather than listed as empty. */
const plan = async (c: Ctx, workspace: string) => (await getWorkspace(c.pool, workspace)).plan;
/** `list` after checking the workspace exists. */
const listOf = async <T>(c: Ctx, workspace: string, list: () => Promise<T>): Promise<T> => {
  await plan(c, workspace);
  return list();
};
const page = (o: PageOpts) => ({ ...(o.limit ? { limit: o.limit } : {}), ...(o.offset ? { offset: o.offset } : {}) });
const lines = <T>(rows: T[], line: (r: T) => string, none: string): string =>
  rows.length ? rows.map(line).join('\n') : none;
const endpointLine = (e: store.Endpoint): string =>
  `${e.id}  ${e.paused ? `paused (${e.paused_reason})` : 'active'}  ${e.url}  ${e.event_types.join(',')}`;
const withSecret = ({ secret, ...endpoint }: store.Endpoint): string =>
  `${keyValueLines(endpoint)}\n\nSigning secret (shown once, keep it safe): ${secret}`;
const eventLine = (e: eventLog.StoredEvent): string =>
  `#${e.sequence}  ${e.id}  ${e.type}  ${e.created_at}  ` +
  (e.deliveries.map((d) => `${d.endpoint_id}:${d.status}(${d.attempts})`).join(' ') || 'no deliveries');

/** `registry <group> <name> [arguments] --workspace <id> [--json]`. */
const sub = (group: Command, name: string, description: string): Command =>
  json(group.command(name).description(description)).requiredOption('--workspace <workspace>', 'the workspace id');

function registerWebhooks(program: Command): void {
  const hooks = program.command('webhooks').description("a workspace's webhook endpoints and their delivery log");
  sub(hooks, 'list', 'the endpoints (secrets are never listed)').action(
    action(
      (c, o: WorkspaceOpt) => listOf(c, o.workspace, () => store.listEndpoints(c.pool, o.workspace)),
      (rows) => lines(rows, endpointLine, 'no webhook endpoints'),
    ),
  );
  sub(hooks, 'add', 'register an https:// endpoint; prints its signing secret once')
    .argument('<url>')
    .option('--events <types>', 'comma-separated event types (default all)')
    .action(
      action(async (c, url: string, o: WorkspaceOpt & { events?: string }) => {
        const p = checkInput(hookOps.createWebhook, {
          url,
          ...(o.events ? { event_types: o.events.split(',').map((t) => t.trim()) } : {}),
        });
        const types = [...new Set(p.event_types)];
        const allowPrivate = c.config.webhooks.allowPrivate;
        return store.createEndpoint(
          c.pool,
          o.workspace,
          await plan(c, o.workspace),
          p.url,
          types,
          allowPrivate,
          OPERATOR,
        );
      }, withSecret),
    );
  const changes = [
    ['pause', 'pause', hookOps.pauseWebhook, 'pause an endpoint (events wait)'],
    ['resume', 'resume', hookOps.resumeWebhook, 'resume an endpoint (what waits is sent at once)'],
    ['rotate-secret', 'rotate', hookOps.rotateWebhookSecret, 'a new signing secret, printed once'],
  ] as const;
  for (const [name, change, op, description] of changes)
    sub(hooks, name, description)
      .argument('<endpoint>')
      .action(
        action(
          (c, id: string, o: WorkspaceOpt) =>
            store.changeEndpoint(c.pool, o.workspace, checkInput(op, { id }).id, change, OPERATOR),
          (e) => (e.secret ? withSecret(e) : endpointLine(e)),
        ),
      );
  sub(hooks, 'delete', 'delete an endpoint and its pending deliveries')
    .argument('<endpoint>')
    .action(
      action(async (c, id: string, o: WorkspaceOpt) => {
        await store.deleteEndpoint(c.pool, o.workspace, checkInput(hookOps.deleteWebhook, { id }).id, OPERATOR);
        return { id, deleted: true };
      }),
    );
  sub(hooks, 'test', 'queue a signed ping event to an endpoint')
    .argument('<endpoint>')
    .action(
      action(
        (c, id: string, o: WorkspaceOpt) =>
          eventLog.sendTestEvent(c.pool, o.workspace, checkInput(hookOps.testWebhook, { id }).id),
        eventLine,
      ),
    );
  sub(hooks, 'deliveries', "an endpoint's delivery attempts, newest first (30 days kept)")
    .argument('<endpoint>')
    .option('--limit <n>', 'how many (default 50, at most 200)')
    .option('--offset <n>', 'how many to skip')
    .action(
      action(
        async (c, id: string, o: PageOpts) => {
          const p = checkInput(hookOps.listWebhookDeliveries, { id, ...page(o) });
          return (await listAttempts(c.pool, o.workspace, p.id, { limit: p.limit, offset: p.offset ?? 0 })).rows;
        },
        (rows) =>
          lines(
            rows,
            (a) =>
              `${a.attempted_at}  ${a.event_id} #${a.attempt}  ${a.status_code ?? '-'}  ${a.latency_ms} ms  ` +
              `${a.error ?? 'ok'}  ${JSON.stringify((a.response_excerpt ?? '').slice(0, 80))}`,
            'no delivery attempts',
          ),
      ),
    );
}

function registerWatches(program: Command): void {
  const watches = program.command('watches').description("a workspace's watched entities, saved searches and events");
  sub(watches, 'list', 'the watched entities, by document number')
    .option('--limit <n>', 'how many (default 100, at most 1000)')
    .option('--offset <n>', 'how many to skip')
    .action(
      action(
        async (c, o: PageOpts) => {
          const p = checkInput(watchOps.listEntityWatches, page(o));
          const pageOf = { limit: p.limit, offset: p.offset ?? 0 };
          return listOf(c, o.workspace, async () => (await store.listWatches(c.pool, o.workspace, pageOf)).rows);
        },
        (rows) => lines(rows, (w) => `${w.document_number}  ${w.name ?? '(no longer in the registry)'}`, 'no watches'),
      ),
    );
  sub(watches, 'add', 'watch an entity by document number')
    .argument('<document-number>')
    .action(
      action(async (c, doc: string, o: WorkspaceOpt) => {
        const p = checkInput(watchOps.watchEntity, { document_number: doc });
        return store.addWatch(c.pool, o.workspace, await plan(c, o.workspace), p.document_number);
      }),
    );
  sub(watches, 'remove', 'stop watching an entity')
    .argument('<document-number>')
    .action(
      action(async (c, doc: string, o: WorkspaceOpt) => {
        const p = checkInput(watchOps.unwatchEntity, { document_number: doc });
        await store.deleteWatch(c.pool, o.workspace, p.document_number);
        return { document_number: p.document_number, removed: true };
      }),
    );
  sub(watches, 'searches', 'the saved searches').action(
    action(
      async (c, o: WorkspaceOpt) =>
        (await listOf(c, o.workspace, () => store.listSavedSearches(c.pool, o.workspace))).map((s) => ({
          id: s.id,
          name: s.name,
          params: s.params,
        })),
      (rows) => lines(rows, (s) => `${s.id}  ${s.name}  ${JSON.stringify(s.params)}`, 'no saved searches'),
    ),
  );
  sub(watches, 'save-search', 'save entity-search filters under a name')
    .argument('<name>')
    .option('--where <filter...>', 'a filter of /entities/search as name=value, e.g. principal_city=MIAMI')
    .action(
      action(async (c, name: string, o: WorkspaceOpt & { where?: string[] }) => {
        const search: Record<string, string> = {};
        for (const f of o.where ?? []) {
          const eq = f.indexOf('=');
          if (eq < 1) throw new Error(`--where ${f}: expected name=value`);
          search[f.slice(0, eq)] = f.slice(eq + 1);
        }
        const p = checkInput(watchOps.saveSearch, { name, search });
        const saved = await store.addSavedSearch(c.pool, o.workspace, await plan(c, o.workspace), p.name, p.search);
        return { id: saved.id, name: saved.name, params: saved.params };
      }),
    );
  sub(watches, 'delete-search', 'delete a saved search')
    .argument('<search>')
    .action(
      action(async (c, id: string, o: WorkspaceOpt) => {
        await store.deleteSavedSearch(c.pool, o.workspace, checkInput(watchOps.deleteSavedSearchWatch, { id }).id);
        return { id, removed: true };
      }),
    );
  sub(watches, 'events', 'the events, newest first (oldest first after a sequence number), with their deliveries')
    .option('--since <instant>', 'only events from this ISO 8601 instant on')
    .option('--after <sequence>', 'only the events numbered after this one, oldest first')
    .option('--type <types>', 'comma-separated event types')
    .option('--limit <n>', 'how many (default 25, at most 200)')
    .option('--offset <n>', 'how many to skip')
    .action(
      action(
        async (c, o: PageOpts & { since?: string; type?: string; after?: string }) => {
          const p = checkInput(watchOps.listWatchEvents, {
            ...(o.since ? { since: o.since } : {}),
            ...(o.after ? { after_sequence: o.after } : {}),
            ...(o.type ? { type: o.type } : {}),
            ...page(o),
          });
          await plan(c, o.workspace);
          const opts = { limit: p.limit, offset: p.offset ?? 0 };
          return (
            await eventLog.listEvents(c.pool, o.workspace, {
              ...opts,
              ...(p.since ? { since: p.since } : {}),
              ...(p.type ? { types: p.type } : {}),
              ...(p.after_sequence === undefined ? {} : { afterSequence: p.after_sequence }),
            })
          ).rows;
        },
        (rows) => lines(rows, eventLine, 'no events'),
      ),
    );
  sub(watches, 'replay', 'send an event again, under its id, to every subscribed endpoint')
    .argument('<event>')
    .action(
      action(
        (c, id: string, o: WorkspaceOpt) =>
          eventLog.replayEvent(c.pool, o.workspace, checkInput(hookOps.replayWebhookEvent, { id }).id),
        eventLine,
      ),
    );
  sub(watches, 'replay-range', 'send again the events written in a time range (or only their failed deliveries)')
    .requiredOption('--since <instant>', 'the first ISO 8601 instant of the range')
    .option('--until <instant>', 'the end of the range, exclusive (now by default)')
    .option('--failed', 'only the deliveries that failed')
    .option('--endpoint <id>', 'only the deliveries to this endpoint')
    .action(
      action(
        (c, o: WorkspaceOpt & { since: string; until?: string; failed?: boolean; endpoint?: string }) => {
          const p = checkInput(hookOps.replayWebhookEvents, {
            since: o.since,
            ...(o.until ? { until: o.until } : {}),
            ...(o.failed ? { status: 'failed' } : {}),
            ...(o.endpoint ? { endpoint_id: o.endpoint } : {}),
          });
          return eventLog.replayEvents(c.pool, o.workspace, {
            since: p.since,
            until: p.until ?? new Date().toISOString(),
            failedOnly: p.status === 'failed',
            ...(p.endpoint_id ? { endpoint: p.endpoint_id } : {}),
          });
        },
        (r) => `${r.events} events replayed, ${r.deliveries} deliveries restarted`,
      ),
    );
}

export function registerMonitoring(program: Command): void {
  registerWebhooks(program);
  registerWatches(program);
}
