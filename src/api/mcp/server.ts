// The MCP server of one HTTP request: `initialize` with the service's instructions, `tools/list`,
// and `tools/call` through the same pipeline as REST (key, plan, per-minute limit, validation, plan
// gate, credit), so both surfaces answer the same question with the same body.
import type { IncomingHttpHeaders } from 'node:http';
// The low-level Server, not McpServer: McpServer turns every failure of a tool (an unknown tool
// included) into an `isError` result and validates arguments itself, while this transport must
// answer with the JSON-RPC errors of the spec and the pipeline's own validation details.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { z } from 'zod';
import { internalError } from '../errors.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_META } from '../idempotency.js';
import { API_VERSION } from '../openapi.js';
import type { Operation } from '../operation.js';
import type { Outcome } from '../outcome.js';
import type { Invocation, Pipeline } from '../pipeline.js';
import { fromApiError, RPC_ERROR, RpcError } from './errors.js';
import { mcpTools, type McpTool } from './tools.js';

const SERVER_INFO = { name: 'registry-lookup', title: 'Registry Lookup', version: API_VERSION };

/** What `initialize` tells an agent before it looks at any tool: the cost and the data-use restriction. */
function instructions(toolNames: readonly string[]): string {
  return [
    'Registry Lookup mirrors the Florida corporate registry (about 12.6 million entities, active and historical), ' +
      'refreshed every early morning UTC.',
    `Tools: ${toolNames.join(', ')}; each description says what it finds and which plan it needs.`,
    'Each tool call costs 1 credit from the same monthly pool as the REST API, also when the entity asked for does ' +
      'not exist (match_entities: 1 credit per query); initialize, tools/list and ping are free.',
    'Data-use restriction: the data is public-record data, not a consumer report. Do not use it for credit, ' +
      'employment, insurance, housing, tenant screening or any other purpose covered by consumer-reporting law.',
    'Officer addresses are never returned. ' +
      'The service is not the registry and is not affiliated with any government body.',
  ].join(' ');
}

/**
 * Loose on purpose: the SDK first parses a request with the handler's schema and answers a failure
 * there with -32603; its own tools/call check, run next, answers a malformed call with -32602.
 */
const ToolCall = z.looseObject({ method: z.literal('tools/call') });

/** What one HTTP request brings to its tool calls, and the calls' outcomes in order. */
export interface Exchange {
  readonly requestId: string;
  readonly headers: IncomingHttpHeaders;
  readonly clientIp: string;
  readonly outcomes: Outcome[];
  /** Keeps a call's credit while it runs, when the request holds one call (src/api/pipeline.ts, keepEarly). */
  readonly keepEarly?: Invocation['keepEarly'];
}

/** What every request's server offers, built once from the operation table. */
export interface McpCatalog {
  readonly tools: ReadonlyMap<string, McpTool>;
  readonly definitions: readonly Tool[];
  readonly instructions: string;
}

export function mcpCatalog(operations: readonly Operation[]): McpCatalog {
  const tools = mcpTools(operations);
  return {
    tools,
    definitions: [...tools.values()].map((t) => t.definition),
    instructions: instructions([...tools.keys()]),
  };
}

export function createMcpServer(
  catalog: McpCatalog,
  pipeline: Pipeline,
  exchange: Exchange,
  validator: jsonSchemaValidator,
): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: catalog.instructions,
    jsonSchemaValidator: validator,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...catalog.definitions] }));
  server.setRequestHandler(ToolCall, async (call) => {
    const request = CallToolRequestSchema.parse(call);
    const tool = catalog.tools.get(request.params.name);
    if (!tool) {
      throw new RpcError(
        RPC_ERROR.methodNotFound,
        `Unknown tool ${JSON.stringify(request.params.name)}; tools/list names the tools.`,
        {
          request_id: exchange.requestId,
        },
      );
    }
    const outcome = await pipeline.invoke(tool.operation, {
      surface: 'mcp',
      headers: exchange.headers,
      args: request.params.arguments ?? {},
      csv: false,
      requestId: exchange.requestId,
      clientIp: exchange.clientIp,
      // A call's own key, else the HTTP request's (docs/contract.md, "Idempotency keys").
      idempotencyKey: request.params._meta?.[IDEMPOTENCY_META] ?? exchange.headers[IDEMPOTENCY_HEADER],
      ...(exchange.keepEarly && { keepEarly: exchange.keepEarly }),
    });
    exchange.outcomes.push(outcome);
    return toolResult(outcome, exchange.requestId);
  });
  return server;
}

function toolResult(outcome: Outcome, requestId: string): CallToolResult {
  const text = JSON.stringify(outcome.body);
  if (outcome.status === 200)
    return { content: [{ type: 'text', text }], structuredContent: outcome.body as Record<string, unknown> };
  // No such entity is an answer, not a failure: the REST 404 body, at the REST 404's price. It stays
  // out of `structuredContent`, which clients check against the output schema (the success body).
  if (outcome.status === 404) return { content: [{ type: 'text', text }], isError: true };
  throw fromApiError(outcome.error ?? internalError(), requestId);
}
