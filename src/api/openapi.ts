// The OpenAPI 3.1 document, generated from the operation table: every route, parameter, response
// and error as served. Schemas come from the same zod definitions the pipeline validates with.
import { z } from 'zod';
import type { Operation } from './operation.js';
import { OPERATION_TAGS, pathParams } from './operation.js';
import { ErrorEnvelope } from './schemas.js';

type Json = Record<string, unknown>;

/** The version of the API's description (OpenAPI `info.version`, MCP `serverInfo.version`). */
export const API_VERSION = '1.0.0';

/** Adds zod defaults (which input-mode JSON Schema leaves out) and drops the unbounded-integer noise. */
export const jsonSchemaOverride = (ctx: { zodSchema: unknown; jsonSchema: Json }): void => {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; defaultValue?: unknown } } })._zod.def;
  if (def.type === 'default')
    ctx.jsonSchema.default =
      typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue;
  if (ctx.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema.maximum;
  if (ctx.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema.minimum;
};

/** JSON Schema of `schema`; named sub-schemas (meta id) are moved into `components`. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: Json): Json {
  const raw = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: jsonSchemaOverride,
    target: 'draft-2020-12',
  });
  const json = JSON.parse(JSON.stringify(raw).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  delete json.$schema;
  Object.assign(components, json.$defs ?? {});
  delete json.$defs;
  return json;
}

/** A multi-value parameter (array or comma-separated string) is described as an array. */
export function parameterSchema(schema: Json): Json {
  const anyOf = schema.anyOf as Json[] | undefined;
  const array = anyOf?.find((s) => s.type === 'array');
  if (!array) return schema;
  const { anyOf: _a, ...rest } = schema;
  return { ...rest, ...array };
}

const RATE_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid parameters: `details` names each bad parameter and why.',
  401: 'Missing, invalid, revoked or conflicting credentials, or a suspended workspace (one body for all).',
  402:
    'No credits left: the free trial is used up, the subscription is cancelled, or the monthly spending cap on ' +
    'overage set by the workspace owner is reached.',
  403: 'Authenticated but not permitted (plan without REST, MCP, CSV, the lead feed or the change stream).',
  404: 'Not found.',
  409: 'The Idempotency-Key was used with another request, or its first request is still being answered. Free.',
  410:
    'cursor_expired: the cursor read the data as of a version no longer kept, or the change position is older than ' +
    'the change feed keeps; start the walk again. Free.',
  429: 'Per-minute limit or monthly quota exceeded; see Retry-After.',
  500: 'Server failure; retry with backoff. Costs nothing.',
};

function errorResponse(status: number): Json {
  const headers: Json = Object.fromEntries(RATE_HEADERS.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
  if (status === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  return {
    description: ERROR_TEXT[status] ?? 'Error.',
    headers,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/** The query and path parameters of `schema`, but those in `inBody`. */
function parametersOf(
  schema: z.ZodType,
  inPath: ReadonlySet<string>,
  components: Json,
  bodyOf: (names: string[]) => string[] = () => [],
): { parameters: Json[]; properties: Record<string, Json>; required: Set<string>; inBody: string[] } {
  const params = schemaOf(schema, 'input', components);
  const properties = (params.properties ?? {}) as Record<string, Json>;
  const required = new Set((params.required ?? []) as string[]);
  const inBody = bodyOf(Object.keys(properties).filter((n) => !inPath.has(n)));
  const parameters: Json[] = Object.entries(properties)
    .filter(([name]) => !inBody.includes(name))
    .map(([name, schema]) => {
      const { description, ...rest } = schema;
      const p: Json = {
        name,
        in: inPath.has(name) ? 'path' : 'query',
        required: inPath.has(name) || required.has(name),
        schema: parameterSchema(rest),
      };
      if (description) p.description = description;
      // Repeat the parameter for several values (commas work too, as the description says).
      if ((p.schema as Json).type === 'array') Object.assign(p, { style: 'form', explode: true });
      return p;
    });
  return { parameters, properties, required, inBody };
}

function operationObject(op: Operation, components: Json): Json {
  // A post's parameters other than the path's are its JSON body.
  const { parameters, properties, required, inBody } = parametersOf(
    op.params,
    new Set(pathParams(op)),
    components,
    (names) => (op.method === 'post' ? names : []),
  );
  // A stream is resumed by Last-Event-ID (its start is charged once, through the pipeline): it reads no
  // Idempotency-Key.
  const stream = op.kind === 'stream';
  if (op.metered && !op.keyless && !stream) parameters.push({ $ref: '#/components/parameters/Idempotency-Key' });
  if (stream)
    parameters.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: "Resume after this event's id (a change number); EventSource sends it on reconnecting.",
      schema: { type: 'string', pattern: '^\\d{1,18}$' },
    });
  if (op.kind === 'list' && !op.keyless) {
    parameters.push({
      name: 'format',
      in: 'query',
      required: false,
      description: 'csv for a CSV answer (plans with CSV), as with Accept: text/csv.',
      schema: { type: 'string', enum: ['json', 'csv'] },
    });
  }
  const name = `${op.name[0]!.toUpperCase()}${op.name.slice(1)}Response`;
  let okContent: Json;
  if (op.kind === 'file') {
    schemaOf(op.result, 'output', components); // the row's columns, documented as a named schema
    const rowSchema = (z.globalRegistry.get(op.result) as { id?: string } | undefined)?.id ?? 'the row schema';
    okContent = {
      'text/csv': {
        schema: {
          type: 'string',
          description: `A header row, then one row per record; columns as in ${rowSchema}.`,
        },
      },
    };
  } else if (stream) {
    schemaOf(op.result, 'output', components); // the events' data, documented as a named schema
    const dataSchema = (z.globalRegistry.get(op.result) as { id?: string } | undefined)?.id ?? 'the data schema';
    okContent = {
      'text/event-stream': {
        schema: {
          type: 'string',
          description:
            `Server-Sent Events: \`retry:\`, then per change \`id:\` (its number), \`event: change\` and ` +
            `\`data:\` (a ${dataSchema}, as JSON); a comment as heartbeat; \`event: end\` with \`data:\` ` +
            '`{reason, error?}` when the server ends it.',
        },
      },
    };
  } else {
    components[name] = schemaOf(op.response, 'output', components);
    okContent = { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } };
  }
  if (op.kind === 'list' && !op.keyless) {
    okContent['text/csv'] = {
      schema: {
        type: 'string',
        description: "The page's hits with a header row; pagination in X-Total-Count, X-Limit, X-Offset.",
      },
    };
  }
  // Every route answers 400 to an unknown or bad parameter.
  const statuses = new Set<number>([400, ...op.errors, ...(op.keyless ? [] : [401]), 429, 500]);
  if (op.metered && !op.keyless && op.kind === 'list') statuses.add(403); // CSV without the plan
  if (op.metered) statuses.add(402);
  if (op.metered && !op.keyless && !stream) statuses.add(409);
  const okHeaders: Json = Object.fromEntries(RATE_HEADERS.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
  if (op.metered && !op.keyless && !stream)
    okHeaders['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
  const responses: Json = { 200: { description: 'OK', headers: okHeaders, content: okContent } };
  for (const s of [...statuses].sort()) responses[s] = errorResponse(s);
  const object: Json = {
    operationId: op.name,
    tags: [op.tag],
    summary: op.title,
    description: op.description,
    parameters,
    responses,
  };
  if (inBody.length) {
    const bodyRequired = inBody.filter((n) => required.has(n));
    object.requestBody = {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: Object.fromEntries(inBody.map((n) => [n, properties[n]])),
            ...(bodyRequired.length ? { required: bodyRequired } : {}),
            additionalProperties: false,
          },
        },
      },
    };
  }
  if (op.keyless) object.security = [];
  if (op.tool) object['x-mcp-tool'] = op.tool;
  return object;
}

/** The group of the routes outside the operation table (all of them billing's). */
const BILLING_TAG = 'Billing';

/**
 * A route outside the operation table (the billing routes), described from the same zod schemas
 * its handler validates with and answers.
 */
export interface DocumentedRoute {
  readonly method: 'get' | 'post';
  readonly path: string;
  /** The server URLs it is served under, instead of the document's (none: the document's). */
  readonly servers: readonly string[];
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  /** Its JSON request body. */
  readonly body?: z.ZodType;
  /** A file as its body instead: the media types it takes. */
  readonly fileBody?: readonly string[];
  /** Its query and path parameters. */
  readonly params?: z.ZodType;
  /** Its success body (`okStatus`, default 200). */
  readonly response: z.ZodType;
  readonly okStatus?: number;
  /** A file as its answer instead: the media types it sends. */
  readonly fileResponse?: readonly string[];
  /** The group it is listed under (default Billing). */
  readonly tag?: string;
  /** Error statuses besides 400, 401, 429 and 500. */
  readonly errors: readonly number[];
}

function routeOperation(route: DocumentedRoute, components: Json): Json {
  const name = `${route.operationId[0]!.toUpperCase()}${route.operationId.slice(1)}`;
  components[`${name}Response`] = schemaOf(route.response, 'output', components);
  const file = (types: readonly string[]): Json =>
    Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', description: 'The file.' } }]));
  const responses: Json = {
    [route.okStatus ?? 200]: {
      description: 'OK',
      headers: Object.fromEntries(RATE_HEADERS.map((h) => [h, { $ref: `#/components/headers/${h}` }])),
      content: route.fileResponse
        ? file(route.fileResponse)
        : { 'application/json': { schema: { $ref: `#/components/schemas/${name}Response` } } },
    },
  };
  for (const s of [...new Set([400, 401, ...route.errors, 429, 500])].sort()) responses[s] = errorResponse(s);
  const object: Json = {
    operationId: route.operationId,
    tags: [route.tag ?? BILLING_TAG],
    summary: route.summary,
    description: route.description,
    parameters: route.params
      ? parametersOf(route.params, new Set([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)), components)
          .parameters
      : [],
    responses,
  };
  if (route.fileBody) object.requestBody = { required: true, content: file(route.fileBody) };
  if (route.body) {
    components[`${name}Request`] = schemaOf(route.body, 'input', components);
    object.requestBody = {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}Request` } } },
    };
  }
  return object;
}

export function openApiDocument(operations: readonly Operation[], routes: readonly DocumentedRoute[] = []): Json {
  const components: Json = {};
  schemaOf(ErrorEnvelope, 'output', components); // named `Error`: lands in components

  const paths: Json = {};
  for (const op of operations) ((paths[op.path] ??= {}) as Json)[op.method ?? 'get'] = operationObject(op, components);
  for (const route of routes) {
    const servers = route.servers.length > 0 ? { servers: route.servers.map((url) => ({ url })) } : {};
    const item = (paths[route.path] ??= servers) as Json;
    item[route.method] = routeOperation(route, components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Registry Lookup API',
      version: API_VERSION,
      description:
        'Read-only API over the Florida corporate registry (about 12.6 million entities, active and historical), ' +
        'refreshed every early morning UTC. Every metered request costs 1 credit. ' +
        'The data is not a consumer report and must not be used for any purpose covered by consumer-reporting law. ' +
        'Not affiliated with any government body.',
    },
    servers: [{ url: '/v1' }, { url: '/api/v1', description: 'Same-origin proxy: the same routes, plus billing.' }],
    tags: [
      ...Object.entries(OPERATION_TAGS).map(([name, description]) => ({ name, description })),
      ...(routes.length
        ? [{ name: BILLING_TAG, description: 'Credit packs and the balance, on the same-origin proxy.' }]
        : []),
    ],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer svc_live_… (or svc_test_…)' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
      headers: {
        'X-RateLimit-Limit': { description: 'The per-minute cap.', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': {
          description: 'Requests left in the current 60-second window.',
          schema: { type: 'integer' },
        },
        'X-RateLimit-Reset': { description: 'Unix seconds at which the window resets.', schema: { type: 'integer' } },
        RateLimit: { description: '"default";r=<remaining>;t=<seconds to reset>', schema: { type: 'string' } },
        'RateLimit-Limit': { description: 'The per-minute cap.', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds until a retry is allowed.', schema: { type: 'integer' } },
        'Idempotent-Replayed': {
          description: 'true: the answer given before under this Idempotency-Key, again, free.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      parameters: {
        'Idempotency-Key': {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'A key of your choosing: the same request again under it within 24 hours gets the same answer, free ' +
            '(Idempotent-Replayed: true); another request under it is a 409. 1 to 255 printable ASCII characters.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
    },
  };
}
