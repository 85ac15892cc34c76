// The request's headers as the pipeline reads credentials from them. Node keeps only the first of a
// repeated Authorization header, so `Authorization: Bearer A` then `Authorization: Bearer B` would be
// served as A; the raw header lines show every occurrence, and a repeated credential header reaches
// the pipeline as a list, which it refuses like any conflicting credentials (docs/contract.md,
// "Authentication").
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';

const CREDENTIAL_HEADERS = ['authorization', 'x-api-key'] as const;

export function credentialHeaders(req: FastifyRequest): IncomingHttpHeaders {
  const raw = req.raw.rawHeaders;
  const seen: Record<string, string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if ((CREDENTIAL_HEADERS as readonly string[]).includes(name)) (seen[name] ??= []).push(raw[i + 1]!);
  }
  const repeated = Object.entries(seen).filter(([, values]) => values.length > 1);
  if (repeated.length === 0) return req.headers;
  return { ...req.headers, ...Object.fromEntries(repeated) };
}
