// /llms.txt and /llms-full.txt (the llmstxt.org format) for AI agents, generated from the operation
// table and the served OpenAPI document, so they list exactly what the API serves.
import type { FastifyInstance } from 'fastify';
import { PLANS, STREAM_EVENTS_PER_CREDIT, formatUsd } from '../accounts/catalog.js';
import type { Operation } from '../api/operation.js';
import type { WebDeps } from './context.js';

type Json = Record<string, unknown>;

const INTRO = (base: string) => `# Registry Lookup

> A commercial, read-only API over the Florida corporate registry (the Florida Division of Corporations' public
> records): fuzzy search over entities, officers, registered agents and addresses, one entity in full, daily and
> recent filings, and a new-business lead feed. REST under ${base}/v1 and the same operations as MCP tools at
> ${base}/mcp. Every request needs an API key (Authorization: Bearer svc_live_...) and costs one credit.

The data is not a consumer report: it must not be used for credit, employment, insurance, housing, tenant screening
or any other purpose covered by consumer-reporting law. This service is not the registry and is not affiliated with
the Florida Division of Corporations or any government body. Officer addresses are never returned.
`;

const route = (op: Operation): string => `GET /v1${op.path}`;

function parameters(deps: WebDeps, op: Operation): string[] {
  const get = deps.openapi.paths[op.path]?.get as { parameters?: Json[] } | undefined;
  // The query and path parameters; the Idempotency-Key header (a shared $ref) is said once, under "Calling the API".
  return (get?.parameters ?? [])
    .filter((p) => p.in === 'query' || p.in === 'path')
    .map((p) => {
      const schema = (p.schema ?? {}) as Json;
      const type =
        schema.type === 'array' ? `list of ${(schema.items as Json | undefined)?.type ?? 'string'}` : schema.type;
      const bits = [
        type,
        p.required ? 'required' : 'optional',
        schema.default !== undefined ? `default ${schema.default}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      return `  - \`${String(p.name)}\` (${bits}): ${String(p.description ?? '')}`;
    });
}

function llmsTxt(deps: WebDeps): string {
  const base = deps.publicBaseUrl;
  const ops = deps.operations.map(
    (op) =>
      `- [${op.title}](${base}/docs): \`${route(op)}\`${op.tool ? `, MCP tool \`${op.tool}\`` : ''}. ` +
      op.description.split('. ')[0]!.replace(/\.$/, '') +
      '.',
  );
  return `${INTRO(base)}
## Docs

- [API reference](${base}/docs): every route, parameter and response, rendered from the OpenAPI document
- [OpenAPI 3.1 document](${base}/v1/openapi.json): machine-readable, as served
- [Full text for agents](${base}/llms-full.txt): every operation with its parameters
- [Pricing](${base}/pricing): plans, credits and packs
- [Data coverage](${base}/data-coverage): counts and freshness; also \`GET ${base}/v1/status\` without a key

## Operations

${ops.join('\n')}

## Optional

- [Keyless sample](${base}/v1/sample): the newest entities, no key needed
- [Keyless name search](${base}/v1/public/search?name=sunshine): the top 10 hits, no key needed
`;
}

/** The plans with bulk snapshots, from the catalog. */
const SNAPSHOT_PLANS = Object.values(PLANS)
  .filter((p) => p.snapshots)
  .map((p) => p.name)
  .join(' and ');

/** What a call costs, in words: a stream is charged by its route, as it opens and as it runs. */
const cost = (op: Operation): string =>
  op.kind === 'stream'
    ? `1 credit as it opens and 1 per further ${STREAM_EVENTS_PER_CREDIT.toLocaleString('en-US')} events`
    : op.metered
      ? '1 credit'
      : 'free';

function llmsFullTxt(deps: WebDeps): string {
  const base = deps.publicBaseUrl;
  const ops = deps.operations.map((op) =>
    [
      `### ${op.title}`,
      '',
      `\`${route(op)}\`${op.tool ? ` · MCP tool \`${op.tool}\`` : ''} · ${cost(op)}` +
        (op.leadFeed ? ' · Lead Feed and Enterprise plans' : '') +
        (op.snapshots ? ` · ${SNAPSHOT_PLANS} plans` : ''),
      '',
      op.description,
      '',
      'Parameters:',
      ...(parameters(deps, op).length ? parameters(deps, op) : ['  (none)']),
      '',
    ].join('\n'),
  );
  const plans = Object.values(PLANS).map(
    (p) =>
      `- ${p.name} (\`${p.slug}\`): ` +
      `${p.priceCents === null ? 'custom price' : `${formatUsd(p.priceCents)} a month`}, ` +
      `${p.unlimited ? 'unlimited' : p.monthlyCredits.toLocaleString('en-US')} credits, ` +
      `${p.perMinute} requests a minute, ` +
      `${p.surfaces.join(' and ').toUpperCase()}`,
  );
  return `${INTRO(base)}
## Calling the API

- Authentication: \`Authorization: Bearer <key>\` or \`X-API-Key: <key>\`. Keys are made in the account pages
  (${base}/account/keys); \`svc_test_\` keys use a separate pool of 1,000 credits a month.
- Answers: \`{ data, pagination, meta }\` for lists, \`{ data, meta }\` for one object, errors as
  \`{ error: { code, message, request_id, details? } }\`. An unknown parameter is a 400 naming it.
- Limits: a sliding 60-second window per workspace (429 with Retry-After); rate-limit headers on every answer.
- MCP: POST ${base}/mcp, Streamable HTTP, stateless; tools return the REST body as structuredContent.
- Retries: send \`Idempotency-Key: <your value>\` (MCP: \`params._meta.idempotency_key\`); the same request again
  within 24 hours gets the same answer free (\`Idempotent-Replayed: true\`), another request under the key a 409.

## Operations

${ops.join('\n')}
## Plans

${plans.join('\n')}
`;
}

export async function llmsRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const short = llmsTxt(deps);
  const full = llmsFullTxt(deps);
  app.get('/llms.txt', async (_req, reply) => reply.type('text/plain; charset=utf-8').send(short));
  app.get('/llms-full.txt', async (_req, reply) => reply.type('text/plain; charset=utf-8').send(full));
}
