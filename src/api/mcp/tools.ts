// The MCP tools, generated from the operation table: each operation with a tool name becomes a tool
// with its title, description, parameters (input schema) and REST body (output schema).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { jsonSchemaOverride, parameterSchema } from '../openapi.js';
import type { Operation } from '../operation.js';

type Json = Record<string, unknown>;

/** A self-contained JSON Schema (named sub-schemas stay in its own `$defs`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: jsonSchemaOverride,
    target: 'draft-2020-12',
  }) as Json;
  // Without `$schema` the MCP default (2020-12) applies, and draft-07 validators in clients still accept it.
  delete json.$schema;
  return json;
}

/** The parameters as tool arguments: a multi-value parameter is described as an array, as agents send it. */
function inputSchema(op: Operation): Tool['inputSchema'] {
  const json = jsonSchema(op.params, 'input');
  const properties = (json.properties ?? {}) as Record<string, Json>;
  return {
    ...json,
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, parameterSchema(v)])),
  };
}

export interface McpTool {
  readonly definition: Tool;
  readonly operation: Operation;
}

export function mcpTools(operations: readonly Operation[]): ReadonlyMap<string, McpTool> {
  const tools = new Map<string, McpTool>();
  for (const op of operations) {
    if (!op.tool) continue;
    const definition: Tool = {
      name: op.tool,
      title: op.title,
      description: op.description,
      inputSchema: inputSchema(op),
      outputSchema: { ...jsonSchema(op.response, 'output'), type: 'object' },
      // Every tool only reads the registry mirror: nothing changes, nothing outside is reached.
      annotations: { readOnlyHint: true, openWorldHint: false },
    };
    tools.set(op.tool, { definition, operation: op });
  }
  return tools;
}
