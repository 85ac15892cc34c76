// What a request tells the request log (src/accounts/request-log.ts) about who called and what it cost,
// set on the request by whichever surface answered it (REST, MCP, the billing routes).
import type { FastifyRequest } from 'fastify';
import type { Outcome } from './pipeline.js';

/** What a request tells the request log about who called and what it cost. */
export interface CallRecord {
  workspaceId: string | null;
  keyId: string | null;
  /** A member signed in to the web app, calling through the same-origin proxy. */
  userId: string | null;
  /** A test key's call (its credits are the test pool's, not the workspace's usage). */
  testKey: boolean;
  credits: number;
  surface: 'rest' | 'mcp' | 'keyless';
}

declare module 'fastify' {
  interface FastifyRequest {
    call?: CallRecord;
  }
}

export function recordCall(req: FastifyRequest, outcome: Outcome, surface: CallRecord['surface']): void {
  req.call = {
    workspaceId: outcome.caller?.workspaceId ?? null,
    keyId: outcome.caller?.keyId ?? null,
    userId: outcome.caller?.userId ?? null,
    testKey: outcome.caller?.keyKind === 'test',
    credits: outcome.credits,
    surface,
  };
}
