// POST /mcp: the tool transport (MCP Streamable HTTP, stateless, JSON responses). Each request is
// checked (Origin, then key and plan, then protocol version) before a fresh MCP server and SDK
// transport handle it; both are closed when the response closes. GET and DELETE answer 405: there
// is no SSE stream and no session.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as webStandardHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { credentialHeaders } from '../credentials.js';
import type { Operation } from '../operation.js';
import type { Caller } from '../../accounts/gate.js';
import type { Pipeline } from '../pipeline.js';
import { recordCall } from '../call-record.js';
import { notKept, type Delivery } from '../delivery.js';
import { errorFrame, fromApiError, RPC_ERROR, RpcError, withRequestId, type ErrorFrame } from './errors.js';
import { invalidParams } from './params-check.js';
import { createMcpServer, mcpCatalog, type Exchange } from './server.js';

const MCP_PATH = '/mcp';
const JSON_TYPE = 'application/json; charset=utf-8';

export interface McpDeps {
  readonly pipeline: Pipeline;
  readonly delivery: Delivery;
  readonly operations: readonly Operation[];
  /** `config.mcpAllowedOrigins`. */
  readonly allowedOrigins: readonly string[];
}

/** The SDK's stateless JSON-response transport, naming the request in every error frame it sends. */
class RequestTransport extends webStandardHttp.WebStandardStreamableHTTPServerTransport {
  constructor(private readonly requestId: string) {
    super({ sessionIdGenerator: undefined, enableJsonResponse: true });
  }

  override send(
    message: JSONRPCMessage,
    options?: Parameters<webStandardHttp.WebStandardStreamableHTTPServerTransport['send']>[1],
  ): Promise<void> {
    return super.send(isJSONRPCErrorResponse(message) ? withRequestId(message, this.requestId) : message, options);
  }
}

/** No Origin (any non-browser client) passes; a browser's must be listed, against DNS rebinding. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  if (allowed.includes('*')) return true;
  return URL.canParse(origin) && allowed.includes(new URL(origin).origin);
}

function parseQuietly(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The SDK reads the request from a web Request; the body is already read (as text) by Fastify. */
function webRequest(req: FastifyRequest, body: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding' || name === 'connection')
      continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(req.url, 'http://localhost'), { method: 'POST', headers, body });
}

/**
 * The transport's own refusals (bad media type, malformed JSON) get the request id, and its generic -32000
 * the spec's -32600.
 */
function transportError(text: string, requestId: string, bodyWasJson: boolean): string {
  const frame = parseQuietly(text) as ErrorFrame | undefined;
  if (!frame?.error) return text;
  if (frame.error.code === -32000) frame.error.code = RPC_ERROR.invalidRequest;
  // Valid JSON that is no JSON-RPC message is an invalid request, not a parse error.
  if (frame.error.code === RPC_ERROR.parse && bodyWasJson) {
    frame.error.code = RPC_ERROR.invalidRequest;
    frame.error.message = 'Invalid request: the body is JSON but not a JSON-RPC 2.0 message.';
  }
  return JSON.stringify(withRequestId(frame, requestId));
}

/**
 * The HTTP status of a request refused before its method runs: REST's for the key and plan refusals (401, 403),
 * but a server failure (a database outage) is -32603 at 200, as the same failure of a tool call is (docs/contract.md).
 */
const admissionStatus = (status: number): number => (status >= 500 ? 200 : status);

const sendFrame = (reply: FastifyReply, status: number, frame: ErrorFrame): FastifyReply =>
  reply.code(status).type('application/json').send(JSON.stringify(frame));

export function registerMcp(app: FastifyInstance, deps: McpDeps): void {
  const catalog = mcpCatalog(deps.operations);
  // One validator for all requests' servers (the SDK would build one per server).
  const validator = new AjvJsonSchemaValidator();

  const handle = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const requestId = req.id;
    const text = typeof req.body === 'string' ? req.body : '';
    const message = parseQuietly(text);
    const id: RequestId | null = isJSONRPCRequest(message) ? message.id : null;

    if (!originAllowed(req.headers.origin, deps.allowedOrigins)) {
      return sendFrame(
        reply,
        403,
        errorFrame(
          id,
          new RpcError(RPC_ERROR.forbidden, `Origin ${req.headers.origin} is not allowed.`, {
            code: 'forbidden',
            request_id: requestId,
          }),
        ),
      );
    }
    // Every request needs a valid key and a plan with MCP, free ones too; only tools/call counts and costs.
    const admission = await deps.pipeline.admit({ surface: 'mcp', headers: credentialHeaders(req), requestId });
    recordCall(req, admission, 'mcp');
    if (admission.error) {
      reply.headers(admission.headers);
      if (admission.status === 401) reply.header('www-authenticate', 'Bearer');
      return sendFrame(
        reply,
        admissionStatus(admission.status),
        errorFrame(id, fromApiError(admission.error, requestId)),
      );
    }
    reply.headers(admission.headers);
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
      const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
      return sendFrame(
        reply,
        400,
        errorFrame(
          id,
          new RpcError(
            RPC_ERROR.invalidRequest,
            `Unsupported MCP-Protocol-Version ${String(version)}; supported: ${supported}.`,
            { request_id: requestId },
          ),
        ),
      );
    }

    const refused = invalidParams(message, requestId);
    if (refused) return sendFrame(reply, 200, refused);

    const exchange: Exchange = {
      requestId,
      headers: credentialHeaders(req),
      clientIp: req.ip,
      outcomes: [],
      // One call a request: its credit can be kept as it runs (a batch's are kept together as it is sent).
      ...(isJSONRPCRequest(message) && {
        keepEarly: (caller: Caller, charge: number) => deps.delivery.begin(req, reply, 'mcp', caller, charge),
      }),
    };
    const server = createMcpServer(catalog, deps.pipeline, exchange, validator);
    const transport = new RequestTransport(requestId);
    server.onerror = (err) => req.log.debug({ err, request_id: requestId }, 'mcp request not served');
    // A stateless server and transport live as long as their response (the SDK's known leak otherwise).
    reply.raw.once('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const response = await transport.handleRequest(
      webRequest(req, text),
      message === undefined ? {} : { parsedBody: message },
    );

    // One HTTP request, one log row: its tool calls' credits together (a JSON-RPC batch may hold several).
    if (req.call) req.call.credits = exchange.outcomes.reduce((n, o) => n + o.charges.length, 0);
    const last = exchange.outcomes.at(-1);
    const headers = last ? last.headers : {};
    const body = await response.text();
    if (!body) return reply.code(response.status).headers(headers).send();
    const answer = {
      status: response.status,
      headers,
      type: response.headers.get('content-type') ?? 'application/json',
      body: response.ok ? body : transportError(body, requestId, message !== undefined),
    };
    // Each call's answer is what its key gives again: the REST body of its outcome.
    const charges = exchange.outcomes.flatMap((o) =>
      o.charges.map((ledgerId) => ({
        ledgerId,
        idempotency: o.idempotencyKey
          ? { key: o.idempotencyKey, status: o.status, type: JSON_TYPE, body: JSON.stringify(o.body) }
          : null,
      })),
    );
    return deps.delivery.send(req, reply, charges, answer, () => ({
      ...answer,
      status: 200,
      body: JSON.stringify(errorFrame(id, fromApiError(notKept(), requestId))),
    }));
  };

  const notAllowed = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> =>
    sendFrame(
      reply.header('allow', 'POST'),
      405,
      errorFrame(
        null,
        new RpcError(
          RPC_ERROR.invalidRequest,
          `${req.method} ${MCP_PATH} is not served: the transport is stateless and answers POST only.`,
          { request_id: req.id },
        ),
      ),
    );

  app.register(async (scope) => {
    // The body reaches the SDK as text, so that it answers malformed JSON and wrong media types in JSON-RPC form.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err: { statusCode?: number; message?: string }, req, reply) => {
      const status = err.statusCode ?? 500;
      if (status >= 500) {
        req.log.error({ err, request_id: req.id }, 'mcp request failed');
        return sendFrame(
          reply,
          500,
          errorFrame(
            null,
            new RpcError(RPC_ERROR.internal, 'Internal server error. Retry with backoff.', {
              code: 'internal_error',
              request_id: req.id,
            }),
          ),
        );
      }
      return sendFrame(
        reply,
        status,
        errorFrame(
          null,
          new RpcError(RPC_ERROR.invalidRequest, err.message ?? 'Invalid request.', { request_id: req.id }),
        ),
      );
    });
    scope.post(MCP_PATH, handle);
    scope.route({ method: ['GET', 'DELETE'], url: MCP_PATH, handler: notAllowed });
  });
}
