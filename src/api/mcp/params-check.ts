// The params of the methods this server answers, checked before the SDK sees them: the SDK answers a
// malformed `initialize` or `tools/list` with -32603 and a raw validation dump, where the contract
// says invalid params are -32602 (docs/contract.md, "MCP"), named like a REST 400's details.
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { validationDetails } from '../refusals.js';
import { errorFrame, RPC_ERROR, RpcError, type ErrorFrame } from './errors.js';

/** A Map: a method named like an object's own property (`constructor`, `__proto__`) is no method of ours. */
const REQUEST_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/** The -32602 frame for a request of a known method whose params do not fit it, else null. */
export function invalidParams(message: unknown, requestId: string): ErrorFrame | null {
  if (!isJSONRPCRequest(message)) return null;
  const schema = REQUEST_SCHEMAS.get(message.method);
  const parsed = schema?.safeParse(message);
  if (!parsed || parsed.success) return null;
  // Named as the method's params are (`protocolVersion`, not `params.protocolVersion`).
  const details = Object.fromEntries(
    Object.entries(validationDetails(parsed.error)).map(([k, v]) => [k.replace(/^params\.?/, '') || 'params', v]),
  );
  return errorFrame(
    message.id,
    new RpcError(RPC_ERROR.invalidParams, `Invalid params for ${message.method}.`, { details, request_id: requestId }),
  );
}
