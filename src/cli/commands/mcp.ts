// `registry mcp-try`: the MCP endpoint tried as a new agent would, knowing only its URL and a key:
// connect, list the tools, and call each once, each call's arguments taken from earlier answers.
import type { Command } from 'commander';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { printResult, type OutputOptions } from '../output.js';

interface Step {
  tool: string;
  arguments: Record<string, unknown>;
  /** The tool's answer: its `structuredContent`, or the text of an `isError` result. */
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

interface Session {
  server: { name: string; version: string; protocol_version: string | undefined; instructions: string | undefined };
  tools: Array<{ name: string; title: string | undefined }>;
  calls: Step[];
}

type Body = { data?: unknown; pagination?: { total: number } };
type Row = Record<string, unknown>;

async function call(client: Client, tool: string, args: Record<string, unknown>): Promise<Step> {
  try {
    const r = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const text = r.content[0]?.type === 'text' ? r.content[0].text : '';
    return { tool, arguments: args, result: r.isError ? JSON.parse(text) : r.structuredContent };
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    return { tool, arguments: args, error: { code: err.code, message: err.message, data: err.data } };
  }
}

const rows = (step: Step): Row[] => {
  const data = (step.result as Body | undefined)?.data;
  return Array.isArray(data) ? (data as Row[]) : [];
};

async function trySession(url: string, key: string, name: string): Promise<Session> {
  const client = new Client({ name: 'registry-mcp-try', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  try {
    const info = client.getServerVersion();
    const { tools } = await client.listTools();
    const calls: Step[] = [];
    const step = async (tool: string, args: Record<string, unknown>): Promise<Step> => {
      const s = await call(client, tool, args);
      calls.push(s);
      return s;
    };
    const hit = rows(await step('search_entities', { name, limit: 3 }))[0];
    const detail = hit
      ? ((await step('get_entity', { document_number: hit.document_number })).result as { data?: Row } | undefined)
          ?.data
      : undefined;
    const officer = (detail?.officers as Row[] | undefined)?.[0]?.name;
    await step('search_officers', { name: officer ?? name, limit: 3 });
    const agent = (detail?.registered_agent as Row | null | undefined)?.name;
    await step('search_agents', { name: agent ?? name, limit: 3 });
    await step('search_addresses', { query: hit?.principal_zip ?? name, limit: 3 });
    const daily = rows(await step('list_daily_filings', { limit: 3 }))[0];
    await step('list_recent_filings', { days: 7, limit: 3 });
    await step('list_new_business_leads', { ...(daily ? { date_from: daily.filing_date } : {}), limit: 3 });
    return {
      server: {
        name: info?.name ?? '?',
        version: info?.version ?? '?',
        protocol_version: transport.protocolVersion,
        instructions: client.getInstructions(),
      },
      tools: tools.map((t) => ({ name: t.name, title: t.title })),
      calls,
    };
  } finally {
    await client.close();
  }
}

/** One line per call: what was asked and the gist of the answer. */
function summary(s: Step): string {
  const asked = `${s.tool} ${JSON.stringify(s.arguments)}`;
  if (s.error)
    return `${asked}\n  -> JSON-RPC error ${s.error.code}: ${s.error.message} ${JSON.stringify(s.error.data)}`;
  const body = s.result as Body & { error?: { code: string; message: string } };
  if (body.error) return `${asked}\n  -> isError result: ${body.error.code}: ${body.error.message}`;
  if (Array.isArray(body.data)) {
    const first = body.data[0] as Row | undefined;
    return (
      `${asked}\n  -> ${body.data.length} of ${body.pagination?.total ?? '?'}` +
      `${first ? `; first: ${JSON.stringify(first)}` : ''}`
    );
  }
  const d = body.data as Row;
  const officers = (d.officers as Row[] | undefined)?.length ?? 0;
  return (
    `${asked}\n  -> ${String(d.entity_name)} (${String(d.status_label)}, ${String(d.entity_type_label)}, ` +
    `filed ${String(d.filing_date)}), ${officers} officers, agent ${JSON.stringify(d.registered_agent)}`
  );
}

function human(s: Session): string {
  return [
    `connected: ${s.server.name} ${s.server.version}, protocol ${s.server.protocol_version ?? '?'}`,
    `instructions: ${s.server.instructions ?? '(none)'}`,
    `${s.tools.length} tools: ${s.tools.map((t) => `${t.name} (${t.title ?? ''})`).join(', ')}`,
    ...s.calls.map(summary),
  ].join('\n');
}

export function registerMcp(program: Command): void {
  program
    .command('mcp-try')
    .description(
      'try an MCP endpoint as an agent would: connect, list the tools, call each once (each call costs 1 credit)',
    )
    .requiredOption('--url <url>', 'the MCP endpoint, e.g. http://127.0.0.1:3000/mcp')
    .option('--key <key>', 'an API key (default: $REGISTRY_API_KEY)')
    .option('--name <name>', 'the entity name to start from', 'sunshine')
    .option('--json', 'print as JSON')
    .action(async (opts: OutputOptions & { url: string; key?: string; name: string }) => {
      const key = opts.key ?? process.env.REGISTRY_API_KEY;
      if (!key) throw new Error('an API key is needed: --key or REGISTRY_API_KEY');
      printResult(await trySession(opts.url, key, opts.name), opts, human);
    });
}
