// What one operation is: defined once, and from that definition come its REST route, its MCP tool
// and its OpenAPI description.
import type { z } from 'zod';
import type { Caller } from '../accounts/gate.js';
import type { Services } from './services.js';

export interface HandlerContext {
  readonly requestId: string;
  /** Null on keyless routes. */
  readonly caller: Caller | null;
  readonly now: Date;
  readonly services: Services;
  /** The client's address, for the audit log of the changes it makes. */
  readonly clientIp: string;
  /**
   * The request's Idempotency-Key (validated), for an operation that creates something without being metered (an
   * export): the pipeline replays metered calls itself.
   */
  readonly idempotencyKey: string | null;
}

export interface ListResult<T = unknown> {
  data: T[];
  pagination: { limit: number; offset: number; total: number; has_more: boolean; next_cursor: string | null };
  facets?: Record<string, Array<{ value: string; count: number }>>;
}

export interface SingleResult<T = unknown> {
  data: T;
  /**
   * Credits of the call's reservation that its answer does not owe (parts of a batch it could not serve, said in
   * the answer): refunded before the answer is sent.
   */
  unbilled?: number;
}

/** A file answer (a CSV download): sent as is, not in an envelope. */
export interface FileResult {
  file: { filename: string; contentType: string; body: string };
}

/**
 * A stream's start, admitted and paid for (an event stream: its route writes it, src/api/change-stream.ts): what
 * the stream needs, which only its route reads.
 */
export interface StreamResult {
  stream: unknown;
}

/**
 * The groups of the API reference, in its order, each with what it holds (the OpenAPI document's `tags`; Swagger
 * UI lists operations under them).
 */
export const OPERATION_TAGS = {
  Entities: 'Search entities by name and read one in full.',
  Matching: "A list's rows tied to entities: up to 100 in one call, or up to 1,000,000 as a background job.",
  'People and places': 'Officers, registered agents and addresses.',
  Filings: "Each day's formations and events, and the latest filings.",
  Leads: 'The new-business lead feed (Lead Feed and Enterprise plans).',
  Exports: "A list's whole result set as a CSV, JSON lines or Parquet file, written in the background.",
  Changes: 'Every change each import made to every entity: pages from any position kept, and a live stream.',
  Snapshots: 'The whole dataset as of each import, as files to download: the copy a mirror starts from.',
  Monitoring: 'Watched entities, saved searches and the events each import writes.',
  Webhooks: 'Signed webhook endpoints for those events, and their deliveries.',
  Account: "The workspace's usage and credits.",
  Keyless: 'Free routes without a key, limited per client address.',
} as const;

type OperationTag = keyof typeof OPERATION_TAGS;

export interface Operation<P extends z.ZodObject = z.ZodObject> {
  /** OpenAPI operationId. */
  readonly name: string;
  /** The group it is listed under in the API reference. */
  readonly tag: OperationTag;
  /** The MCP tool's name; null for routes that are not tools. */
  readonly tool: string | null;
  /**
   * The HTTP method (default get). A post takes its parameters other than the path's from a JSON body;
   * only get operations are MCP tools.
   */
  readonly method?: 'get' | 'post' | 'delete';
  /** Path under /v1, in OpenAPI form: `/entities/{document_number}`. */
  readonly path: string;
  readonly title: string;
  /** What it finds, for people and agents alike. */
  readonly description: string;
  /** Query and path parameters together. */
  readonly params: P;
  readonly kind: 'list' | 'single' | 'file' | 'stream';
  /** The 200 body's `data` items (list) or object (single); for a file, its rows; for a stream, its events' data. */
  readonly result: z.ZodType;
  /** The whole 200 body (a stream's: its events' data). */
  readonly response: z.ZodType;
  /** Costs a credit when answered 2xx or 404. */
  readonly metered: boolean;
  /**
   * The credits a metered call costs, when more than one (a batch: one per query, at the catalog's price). All
   * are reserved before the handler runs, so a call is served whole or refused whole.
   */
  readonly credits?: (params: z.output<P>) => number;
  /** Only for plans with the lead feed. */
  readonly leadFeed?: boolean;
  /** Only for plans with bulk snapshots (the catalog's): another plan is refused before a credit is reserved. */
  readonly snapshots?: boolean;
  /** A keyless route: no key, never metered, limited per client IP in its own window. */
  readonly keyless?: { readonly perMinute: number };
  /** Error statuses it documents besides 401, 429 and 500. */
  readonly errors: readonly number[];
  handle(params: z.output<P>, ctx: HandlerContext): Promise<ListResult | SingleResult | FileResult | StreamResult>;
}

export const defineOperation = <P extends z.ZodObject>(op: Operation<P>): Operation<P> => op;

/** Path parameters of an operation, from its path. */
export const pathParams = (op: Operation): string[] => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
