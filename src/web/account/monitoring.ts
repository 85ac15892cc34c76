// The Monitoring page (docs/web.md, "Monitoring"): any member registers, pauses, resumes, tests, rotates and
// deletes webhook endpoints, watches entities, saves searches and replays events. Each form's input is checked
// by its REST operation's schema and goes to the same store functions under the plan's limits, so the page
// refuses what the API refuses, for the same reasons.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../../accounts/audit.js';
import { PLANS, type PlanSlug } from '../../accounts/catalog.js';
import { ERROR_STATUS } from '../../api/errors.js';
import { checkInput, InputRefusal } from '../../api/operations/monitoring-input.js';
import * as watchOps from '../../api/operations/watches.js';
import * as hookOps from '../../api/operations/webhooks.js';
import { listAttempts } from '../../monitoring/log.js';
import * as store from '../../monitoring/store.js';
import * as eventLog from '../../monitoring/event-log.js';
import type { WebDeps } from '../context.js';
import type { FieldErrors } from '../forms.js';
import { html } from '../html.js';
import type { Notice } from '../layout.js';
import { askedOffset } from '../pager.js';
import { actorOf, type Member, memberOf, noticeFrom, render, workspaceOf } from './shared.js';
import { monitoringBody, SEARCH_FIELDS, type FormState } from './monitoring-page.js';

/** Latest events shown: a week of a busy watchlist; the API pages through the rest. */
const MONITORING_EVENTS_SHOWN = 25;
/** Latest attempts shown per endpoint: enough to see whether it answers; the API pages through the log. */
const ATTEMPTS_SHOWN = 5;
/** Watches on one page: a plan may keep 50,000; the rest are a link away. */
const WATCHES_SHOWN = 100;

const PAGE = '/account/monitoring' as const;

const NOTICES: Record<string, Notice> = {
  paused: { kind: 'ok', text: 'The endpoint is paused: its events wait until you resume it.' },
  resumed: { kind: 'ok', text: 'The endpoint is resumed: what waited is being sent now.' },
  tested: { kind: 'ok', text: 'A signed ping event is queued for the endpoint; its attempt appears below.' },
  deleted: { kind: 'ok', text: 'The endpoint and its pending deliveries are deleted.' },
  rotated: { kind: 'ok', text: 'A new signing secret signs from now on; the old one no longer does.' },
  watched: { kind: 'ok', text: 'The entity is watched: each import that changes it sends entity.updated.' },
  search_saved: { kind: 'ok', text: 'The search is saved: each import sends saved_search.match for a new match.' },
  unwatched: { kind: 'ok', text: 'The entity is no longer watched.' },
  search_deleted: { kind: 'ok', text: 'The saved search is deleted.' },
  replayed: { kind: 'ok', text: 'The event is queued again, under its same id, for every endpoint that takes it.' },
  not_found: { kind: 'error', text: 'This workspace has no such endpoint, watch, search or event.' },
};

/** The plans that include monitoring, in the catalog's order. */
const monitoringPlans = (): string =>
  (Object.keys(PLANS) as PlanSlug[])
    .filter((p) => PLANS[p].monitoring)
    .map((p) => PLANS[p].name)
    .join(', ');

const notOnPlan = () =>
  html`<div class="card">
    <h2>Not on this plan</h2>
    <p>
      Watches, saved searches and signed webhooks come with ${monitoringPlans()}. See
      <a href="/account/billing">Billing</a> to change plan, and <a href="/docs">the docs</a> for what they send.
    </p>
  </div>`;

interface Shown {
  readonly status?: number;
  readonly state?: FormState;
  readonly notice?: Notice | null;
}

async function show(req: FastifyRequest, reply: FastifyReply, deps: WebDeps, m: Member, o: Shown = {}) {
  const page = { title: 'Monitoring', section: PAGE, status: o.status ?? 200, notice: o.notice ?? null };
  const limits = PLANS[(await workspaceOf(deps, m)).plan].monitoring;
  if (!limits) return render(req, reply, deps, m, { ...page, status: o.status ? 403 : 200, body: notOnPlan() });
  const { pool } = deps;
  const watchPage = { limit: WATCHES_SHOWN, offset: askedOffset(req, 'watches_offset') };
  const [endpoints, watches, searches, events] = await Promise.all([
    store.listEndpoints(pool, m.workspaceId),
    store.listWatches(pool, m.workspaceId, watchPage),
    store.listSavedSearches(pool, m.workspaceId),
    eventLog.listEvents(pool, m.workspaceId, { limit: MONITORING_EVENTS_SHOWN, offset: 0 }),
  ]);
  const attempts = await Promise.all(
    endpoints.map(async (e) => ({
      url: e.url,
      rows: (await listAttempts(pool, m.workspaceId, e.id, { limit: ATTEMPTS_SHOWN, offset: 0 })).rows,
    })),
  );
  const view = {
    limits,
    endpoints,
    attempts,
    watches: { ...watches, offset: watchPage.offset, shown: WATCHES_SHOWN },
    searches,
    events,
    attemptsShown: ATTEMPTS_SHOWN,
  };
  return render(req, reply, deps, m, { ...page, body: monitoringBody(req, view, o.state) });
}

/**
 * Runs one form's work: back to the page with a notice, or the page itself (a secret shown once). Bad input
 * and the store's refusals come back as the page with each problem under its field (`rename` maps a schema's
 * parameter to the form's field), the input sent back, nothing changed.
 */
async function submit(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: WebDeps,
  form: 'endpoint' | 'watch' | 'search',
  work: (m: Member, plan: PlanSlug) => Promise<FormState | string>,
  rename: (param: string) => string = (p) => p.split('.')[0]!,
) {
  const m = memberOf(req);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const sent = Object.fromEntries(
    Object.entries(body)
      .filter(([k]) => k !== '_csrf')
      .map(([k, v]) => [`${form}.${k}`, (Array.isArray(v) ? v.join(',') : String(v)).slice(0, 2000)]),
  );
  const refuse = (status: number, errors: FieldErrors) =>
    show(req, reply, deps, m, { status, state: { errors, sent } });
  try {
    const state = await work(m, (await workspaceOf(deps, m)).plan);
    return typeof state === 'string' ? back(reply, state) : show(req, reply, deps, m, { status: 201, state });
  } catch (err) {
    if (err instanceof InputRefusal)
      return refuse(
        400,
        Object.fromEntries(Object.entries(err.details).map(([param, why]) => [`${form}.${rename(param)}`, why])),
      );
    if (err instanceof store.Refusal) {
      const field = err.kind === 'bad_request' || err.kind === 'not_found' ? rename(err.field) : 'form';
      return refuse(ERROR_STATUS[err.kind], { [`${form}.${field}`]: err.message });
    }
    throw err;
  }
}

/** A form field as text, empty when absent. */
const field = (req: FastifyRequest, name: string): string => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
};
const fieldList = (req: FastifyRequest, name: string): string[] => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
};

/** A button's work on one endpoint, watch, search or event: null when its id names nothing of this workspace's. */
async function attempt<T>(work: () => Promise<T>): Promise<{ value: T } | null> {
  try {
    return { value: await work() };
  } catch (err) {
    if (err instanceof InputRefusal || err instanceof store.Refusal) return null;
    throw err;
  }
}

const back = (reply: FastifyReply, done: string) => reply.redirect(`${PAGE}?done=${done}`, 303);

type Act = (pool: WebDeps['pool'], workspace: string, id: string, actor: Actor) => Promise<unknown>;

/** The endpoint buttons that answer with a notice (rotating answers with the new secret). */
const ENDPOINT_ACTIONS: Record<string, [typeof hookOps.pauseWebhook, Act, string]> = {
  pause: [hookOps.pauseWebhook, (p, w, id, a) => store.changeEndpoint(p, w, id, 'pause', a), 'paused'],
  resume: [hookOps.resumeWebhook, (p, w, id, a) => store.changeEndpoint(p, w, id, 'resume', a), 'resumed'],
  test: [hookOps.testWebhook, (p, w, id) => eventLog.sendTestEvent(p, w, id), 'tested'],
  delete: [hookOps.deleteWebhook, (p, w, id, a) => store.deleteEndpoint(p, w, id, a), 'deleted'],
};

export async function monitoringRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool } = deps;
  const allowPrivate = deps.allowPrivateWebhooks;

  app.get(PAGE, async (req, reply) => {
    const m = memberOf(req);
    return show(req, reply, deps, m, { notice: noticeFrom(req, NOTICES) });
  });

  app.post(`${PAGE}/webhooks`, (req, reply) =>
    submit(req, reply, deps, 'endpoint', async (m, plan) => {
      const types = fieldList(req, 'event_types');
      if (!types.length) throw new InputRefusal({ event_types: 'Choose at least one event type.' });
      if (!field(req, 'url')) throw new InputRefusal({ url: "Enter the endpoint's https:// URL." });
      const p = checkInput(hookOps.createWebhook, { url: field(req, 'url'), event_types: types });
      const made = await store.createEndpoint(
        pool,
        m.workspaceId,
        plan,
        p.url,
        [...new Set(p.event_types)],
        allowPrivate,
        actorOf(req, m),
      );
      return { secret: { url: made.url, secret: made.secret! } };
    }),
  );

  app.post<{ Params: { id: string } }>(`${PAGE}/webhooks/:id/rotate`, async (req, reply) => {
    const m = memberOf(req);
    const made = await attempt(() =>
      store.changeEndpoint(
        pool,
        m.workspaceId,
        checkInput(hookOps.rotateWebhookSecret, { id: req.params.id }).id,
        'rotate',
        actorOf(req, m),
      ),
    );
    if (!made) return back(reply, 'not_found');
    const { url, secret } = made.value;
    return show(req, reply, deps, m, { notice: NOTICES.rotated, state: { secret: { url, secret: secret! } } });
  });

  app.post<{ Params: { id: string; action: string } }>(`${PAGE}/webhooks/:id/:action`, async (req, reply) => {
    const m = memberOf(req);
    const action = ENDPOINT_ACTIONS[req.params.action];
    if (!action) return reply.callNotFound();
    const [op, act, notice] = action;
    const done = await attempt(() =>
      act(pool, m.workspaceId, checkInput(op, { id: req.params.id }).id, actorOf(req, m)),
    );
    return back(reply, done ? notice : 'not_found');
  });

  app.post(`${PAGE}/watches`, (req, reply) =>
    submit(req, reply, deps, 'watch', async (m, plan) => {
      const p = checkInput(watchOps.watchEntity, { document_number: field(req, 'document_number') });
      await store.addWatch(pool, m.workspaceId, plan, p.document_number);
      return 'watched';
    }),
  );

  const removal = (path: string, act: (m: Member, id: string) => Promise<unknown>, notice: string) =>
    app.post<{ Params: { id: string } }>(path, async (req, reply) => {
      const m = memberOf(req);
      return back(reply, (await attempt(() => act(m, req.params.id))) ? notice : 'not_found');
    });
  removal(
    `${PAGE}/watches/:id/remove`,
    (m, doc) =>
      store.deleteWatch(
        pool,
        m.workspaceId,
        checkInput(watchOps.unwatchEntity, { document_number: doc }).document_number,
      ),
    'unwatched',
  );
  removal(
    `${PAGE}/searches/:id/delete`,
    (m, id) => store.deleteSavedSearch(pool, m.workspaceId, checkInput(watchOps.deleteSavedSearchWatch, { id }).id),
    'search_deleted',
  );
  removal(
    `${PAGE}/events/:id/replay`,
    (m, id) => eventLog.replayEvent(pool, m.workspaceId, checkInput(hookOps.replayWebhookEvent, { id }).id),
    'replayed',
  );

  app.post(`${PAGE}/searches`, (req, reply) =>
    submit(
      req,
      reply,
      deps,
      'search',
      async (m, plan) => {
        const search: Record<string, string> = {};
        for (const name of [...SEARCH_FIELDS.map(([f]) => f), 'status'])
          if (field(req, name)) search[name] = field(req, name);
        if (!Object.keys(search).length) throw new InputRefusal({ form: 'Fill in at least one filter.' });
        const p = checkInput(watchOps.saveSearch, { name: field(req, 'label'), search });
        await store.addSavedSearch(pool, m.workspaceId, plan, p.name, p.search);
        return 'search_saved';
      },
      // The schema's `name` is the search's own; its filters are `search.<filter>`, the form's fields.
      (param) => (param === 'name' ? 'label' : param.startsWith('search.') ? param.split('.')[1]! : 'form'),
    ),
  );
}
