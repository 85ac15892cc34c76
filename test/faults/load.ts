// The fault suite's load: many connections at once, REST and MCP mixed, over the suite's workspaces, each answer
// counted as the client saw it (its request id, whether it is one that costs a credit).
export interface LoadWorkspace {
  readonly id: string;
  readonly key: string;
  /** Which surfaces this workspace's calls use. */
  readonly surfaces: ReadonlyArray<'rest' | 'mcp'>;
  /** Its share of the requests. */
  readonly weight: number;
}

export interface Received {
  readonly workspaceId: string;
  readonly requestId: string;
  readonly surface: 'rest' | 'mcp';
  /** An answer that costs a credit: a REST 2xx or 404, an MCP tool result (an isError 404 included). */
  readonly charged: boolean;
  readonly status: number;
}

const REST_PATHS = [
  '/v1/entities/L20000000001',
  '/v1/entities/NOSUCH1',
  '/v1/entities/search?name=acme',
  '/v1/officers/search?name=smith',
  '/v1/filings/recent?days=30',
];
const TOOLS = [
  { name: 'get_entity', arguments: { document_number: 'L22000000003' } },
  { name: 'search_entities', arguments: { name: 'sunshine' } },
  { name: 'list_recent_filings', arguments: {} },
];

/** One call as a client would make it; what it received, or null when no answer came (the server was down). */
async function call(base: string, ws: LoadWorkspace, n: number): Promise<Received | null> {
  const surface = ws.surfaces[n % ws.surfaces.length]!;
  const headers: Record<string, string> = { authorization: `Bearer ${ws.key}` };
  const received = (res: Response, charged: boolean): Received => ({
    workspaceId: ws.id,
    requestId: res.headers.get('x-request-id') ?? '',
    surface,
    charged,
    status: res.status,
  });
  try {
    if (surface === 'rest') {
      const res = await fetch(`${base}${REST_PATHS[n % REST_PATHS.length]}`, { headers });
      await res.arrayBuffer();
      return received(res, (res.status >= 200 && res.status < 300) || res.status === 404);
    }
    const body = { jsonrpc: '2.0', id: n, method: 'tools/call', params: TOOLS[n % TOOLS.length] };
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return received(res, res.status === 200 && (JSON.parse(text) as { result?: unknown }).result !== undefined);
  } catch {
    return null;
  }
}

export interface Load {
  /** Stops the load and resolves once every connection's last call has ended. */
  stop(): Promise<void>;
}

/** Starts `connections` clients calling in a loop until stopped; every answer goes to `received`. */
export function startLoad(
  base: string,
  workspaces: readonly LoadWorkspace[],
  connections: number,
  received: Received[],
  counts: { sent: number; unanswered: number },
): Load {
  let stopped = false;
  const total = workspaces.reduce((n, w) => n + w.weight, 0);
  const pick = (r: number): LoadWorkspace => {
    let x = r * total;
    for (const w of workspaces) if ((x -= w.weight) < 0) return w;
    return workspaces.at(-1)!;
  };
  const worker = async (c: number): Promise<void> => {
    for (let i = 0; !stopped; i++) {
      counts.sent++;
      const got = await call(base, pick(Math.random()), c + i);
      if (got) received.push(got);
      else counts.unanswered++;
      // The server or its database is down: do not spin on refusals.
      if (!got || got.status >= 500) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const workers = Array.from({ length: connections }, (_, c) => worker(c));
  return {
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}
