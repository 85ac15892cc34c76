// The reconciliation service's routes under /v1/reconcile/{token} (docs/reconciliation.md): the endpoint (the manifest
// with no parameter, a query batch with `queries`, data extension with `extend`, by GET or by a form POST), suggest,
// preview and property proposals. Each goes through reconcileCall; what it costs is decided here, before the call.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { CREDITS_PER_MATCH_QUERY } from '../../accounts/catalog.js';
import { ApiError, type Details } from '../errors.js';
import { validationDetails } from '../refusals.js';
import { reconcileCall, type CallSpec, type ReconcileDeps, type Reply } from './call.js';
import { distinctIds, extend, ExtendQuery, propose, ProposeQuery } from './extend.js';
import { manifest, serviceUrl } from './manifest.js';
import { detailsUnder, readBatch } from './batch.js';
import { reconcile } from './queries.js';
import { PREVIEW_HEADERS, previewPage, PreviewQuery } from './preview.js';
import { suggestEntities, suggestFrom, SuggestQuery } from './suggest.js';
import { ALL_PROPERTIES, TYPES } from './vocabulary.js';

const RECONCILE_PREFIX = '/v1/reconcile';

/** A form body's limit: a full batch of long queries with every property is under 64 KiB; room to spare. */
const FORM_BODY_LIMIT = 256 * 1024;

type Args = Record<string, unknown>;
type Read<T> = { data: T; invalid: null } | { data: null; invalid: Details };

/** A form body's fields; a field given twice is a list, refused by the schemas as not a single value. */
function formFields(body: string): Args {
  const fields: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const had = fields[k];
    fields[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  return fields;
}

function read<S extends z.ZodType>(schema: S, value: unknown): Read<z.output<S>> {
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { data: parsed.data, invalid: null }
    : { data: null, invalid: validationDetails(parsed.error) };
}

/** A parameter holding JSON (`extend`), read with its schema; its problems named under it. */
function readJson<S extends z.ZodType>(name: string, raw: unknown, schema: S): Read<z.output<S>> {
  if (typeof raw !== 'string') return { data: null, invalid: { [name]: 'must be a single JSON text' } };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { data: null, invalid: { [name]: 'is not valid JSON' } };
  }
  const parsed = schema.safeParse(json);
  return parsed.success
    ? { data: parsed.data, invalid: null }
    : { data: null, invalid: detailsUnder(name, parsed.error) };
}

const tokenOf = (req: FastifyRequest): string => (req.params as { token: string }).token;
const queryOf = (req: FastifyRequest): Args => req.query as Args;

export async function reconcileRoutes(app: FastifyInstance, deps: ReconcileDeps): Promise<void> {
  // v0.2 sends batches as form fields: nothing else is read here (another type is a 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_req, body, done) => done(null, formFields(body as string)),
  );

  const call = (req: FastifyRequest, reply: FastifyReply, spec: Omit<CallSpec, 'token'>) =>
    reconcileCall(deps, req, reply, { ...spec, token: tokenOf(req) });
  const json = (value: unknown): Reply => ({ json: value });
  const free = (name: string, r: Read<unknown>, handle: () => unknown) =>
    ({ name, credits: 0, invalid: r.invalid, handle: async () => json(handle()) }) as const;

  const endpoint = async (req: FastifyRequest, reply: FastifyReply) => {
    const fromQuery = queryOf(req);
    const fromBody = (req.body ?? {}) as Args;
    const args: Args = { ...fromQuery, ...fromBody };
    const invalid: Details = {};
    for (const k of Object.keys(fromBody)) if (k in fromQuery) invalid[k] = 'is given in both the query and the body';
    for (const k of Object.keys(args)) if (k !== 'extend' && k !== 'queries') invalid[k] ??= 'unknown parameter';
    if ('extend' in args && 'queries' in args) invalid.extend = 'is one call, queries another: send one of them';
    if ('queries' in args) {
      const r = typeof args.queries === 'string' ? readBatch(args.queries) : { invalid: { queries: 'must be JSON' } };
      const errors = { ...invalid, ...('invalid' in r ? r.invalid : {}) };
      const queries = 'queries' in r ? r.queries : [];
      return call(req, reply, {
        name: 'queries',
        // One credit per query, as a row of POST /v1/entities/match (docs/reconciliation.md, "Costs").
        credits: queries.length * CREDITS_PER_MATCH_QUERY,
        batch: true,
        invalid: Object.keys(errors).length > 0 ? errors : null,
        handle: async () => json(await reconcile(deps.services, queries)),
      });
    }
    if ('extend' in args) {
      const r = readJson('extend', args.extend, ExtendQuery);
      const errors = { ...invalid, ...r.invalid };
      const bad = Object.keys(errors).length > 0;
      return call(req, reply, {
        name: 'extend',
        credits: r.data ? distinctIds(r.data).length : 0,
        invalid: bad ? errors : null,
        handle: async () => json(await extend(deps.services, r.data!)),
      });
    }
    const service = serviceUrl(deps.baseUrl, tokenOf(req));
    const bad = Object.keys(invalid).length > 0;
    return call(req, reply, {
      name: 'manifest',
      credits: 0,
      invalid: bad ? invalid : null,
      handle: async () => json(manifest(deps.baseUrl, service)),
    });
  };
  app.get(`${RECONCILE_PREFIX}/:token`, endpoint);
  app.post(`${RECONCILE_PREFIX}/:token`, endpoint);

  app.get(`${RECONCILE_PREFIX}/:token/suggest/entity`, (req, reply) => {
    const r = read(SuggestQuery, queryOf(req));
    return call(req, reply, {
      name: 'suggest entity',
      credits: 1,
      invalid: r.invalid,
      handle: async () => json(await suggestEntities(deps.services, r.data!)),
    });
  });
  app.get(`${RECONCILE_PREFIX}/:token/suggest/property`, (req, reply) => {
    const r = read(SuggestQuery, queryOf(req));
    return call(
      req,
      reply,
      free('suggest property', r, () => suggestFrom(ALL_PROPERTIES, r.data!)),
    );
  });
  app.get(`${RECONCILE_PREFIX}/:token/suggest/type`, (req, reply) => {
    const r = read(SuggestQuery, queryOf(req));
    return call(
      req,
      reply,
      free('suggest type', r, () => suggestFrom(TYPES, r.data!)),
    );
  });
  app.get(`${RECONCILE_PREFIX}/:token/properties`, (req, reply) => {
    const r = read(ProposeQuery, queryOf(req));
    return call(
      req,
      reply,
      free('propose properties', r, () => propose(r.data!)),
    );
  });
  app.get(`${RECONCILE_PREFIX}/:token/preview`, (req, reply) => {
    const r = read(PreviewQuery, queryOf(req));
    return call(req, reply, {
      name: 'preview',
      credits: 1,
      invalid: r.invalid,
      async handle() {
        const entity = await deps.services.search.entity(r.data!.id);
        // A 404 is an answer, and costs its credit like GET /v1/entities/{document_number}'s.
        if (!entity) throw new ApiError('not_found', `No entity with document number ${r.data!.id}.`);
        return { html: previewPage(entity), headers: PREVIEW_HEADERS };
      },
    });
  });
  // Any other address under the service answers without repeating it: the path holds the credential.
  app.all(`${RECONCILE_PREFIX}/*`, async (req, reply) =>
    reply
      .code(404)
      .header('access-control-allow-origin', '*')
      .send(new ApiError('not_found', 'No such reconciliation route. See docs/reconciliation.md.').body(req.id)),
  );
}
