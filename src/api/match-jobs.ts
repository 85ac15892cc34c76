// The match-job routes that stream (docs/matching.md, "Jobs"): POST /v1/match/jobs takes the file as it arrives and
// answers the job (202), GET /v1/match/jobs/{id}/results sends its results as a file. Both pass the pipeline's
// account stages (authenticated, counted in the workspace's window, never metered: a job is charged per row as it
// runs) and take the same-origin proxy's signed-in member like every route.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { createJob, jobByIdempotencyKey } from '../matching/create.js';
import { MATCH_FIELDS, getJob } from '../matching/jobs.js';
import { resultStream } from '../matching/results.js';
import { MAX_JOB_ROWS, UploadRefusal } from '../matching/upload.js';
import { MatchJob } from './operations/match-jobs.js';
import type { DocumentedRoute } from './openapi.js';
import { singleEnvelope } from './schemas.js';
import { ALGORITHM_NAMES, DEFAULT_ALGORITHM } from '../search/index.js';
import { recordCall } from './call-record.js';
import { credentialHeaders } from './credentials.js';
import { ApiError, badRequest } from './errors.js';
import { IDEMPOTENCY_HEADER, readIdempotencyKey } from './idempotency.js';
import type { MemberAuth, Pipeline } from './pipeline.js';
import { parseOrRefuse } from './refusals.js';
import { sendOutcome } from './rest.js';

export interface MatchJobDeps {
  readonly pool: pg.Pool;
  readonly pipeline: Pipeline;
  readonly clock: Clock;
  readonly member: MemberAuth;
}

const API_PREFIXES = ['/v1', '/api/v1'] as const;
/** The media types a job's file comes as, and the format each is read as. */
const FORMATS: Readonly<Record<string, 'csv' | 'jsonl'>> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
  'application/json-lines': 'jsonl',
};

const column = z.string().trim().min(1).max(200);
const UploadParams = z.strictObject({
  ...Object.fromEntries(MATCH_FIELDS.map((f) => [f, column.optional()])),
  algorithm: z
    .enum(ALGORITHM_NAMES as [string, ...string[]], { error: `must be one of ${ALGORITHM_NAMES.join(', ')}` })
    .default(DEFAULT_ALGORITHM),
  file_name: z.string().trim().min(1).max(200).optional(),
}) as z.ZodType<{ algorithm: string; file_name?: string } & Partial<Record<(typeof MATCH_FIELDS)[number], string>>>;

const ResultParams = z.strictObject({
  id: z.string().regex(/^mj_[0-9a-f]{24}$/, { error: 'must be a match job id (mj_ and 24 hex digits)' }),
  format: z.enum(['csv', 'jsonl'], { error: 'must be csv or jsonl' }).default('csv'),
});

/** The query without `api_key` (which never authenticates and is never an error). */
function query(req: FastifyRequest): Record<string, unknown> {
  const { api_key: _ignored, ...rest } = req.query as Record<string, unknown>;
  return rest;
}

export async function matchJobRoutes(app: FastifyInstance, deps: MatchJobDeps): Promise<void> {
  const { pool, pipeline, clock, member } = deps;
  // The file is read as it streams in (src/matching/upload.ts), never buffered whole.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  const upload = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // No body at all is none (Fastify calls no parser).
    const body = req.body as Readable | undefined;
    const outcome = await pipeline.account(
      { headers: credentialHeaders(req), requestId: req.id, member: await member(req) },
      async (caller) => {
        if (caller.keyKind === 'test')
          throw new ApiError('forbidden', 'A match job is charged in live credits: create it with a live key.');
        const params = parseOrRefuse(UploadParams, query(req));
        const media = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        const format = FORMATS[media];
        if (!format)
          throw badRequest(
            { 'content-type': `must be one of ${Object.keys(FORMATS).join(', ')}` },
            'Send the file as CSV (with a header row) or JSON lines.',
          );
        if (!body) throw badRequest({ body: 'is missing: send the file as the body' }, 'The request has no file.');
        const idempotency = readIdempotencyKey(req.headers[IDEMPOTENCY_HEADER]);
        if (idempotency && 'invalid' in idempotency) throw badRequest({ 'Idempotency-Key': idempotency.invalid });
        const key = idempotency?.key ?? null;
        const before = key ? await jobByIdempotencyKey(pool, caller.workspaceId, key) : null;
        if (before) return before;
        const { algorithm, file_name, ...mapping } = params;
        try {
          const made = await createJob(
            pool,
            {
              workspace: caller.workspaceId,
              keyId: caller.keyId,
              userId: caller.userId,
              algorithm,
              format,
              fileName: file_name ?? null,
              mapping,
              idempotencyKey: key,
            },
            body,
            clock.now(),
          );
          return made.job;
        } catch (err) {
          if (err instanceof UploadRefusal) throw badRequest({ [err.param]: err.message }, err.message);
          throw err;
        }
      },
    );
    recordCall(req, outcome, 'rest');
    // Whatever was not read of a refused file is drained, so that the answer reaches the client.
    body?.resume();
    return sendOutcome(reply, outcome.status === 200 ? { ...outcome, status: 202 } : outcome);
  };

  const results = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    let file: { id: string; format: 'csv' | 'jsonl' } | null = null;
    const outcome = await pipeline.account(
      { headers: credentialHeaders(req), requestId: req.id, member: await member(req) },
      async (caller) => {
        const p = parseOrRefuse(ResultParams, { ...query(req), ...(req.params as Record<string, unknown>) });
        const job = await getJob(pool, caller.workspaceId, p.id);
        if (!job) throw new ApiError('not_found', `No match job ${p.id}.`);
        file = { id: job.id, format: p.format };
        return job;
      },
    );
    recordCall(req, outcome, 'rest');
    if (outcome.status !== 200 || !file) return sendOutcome(reply, outcome);
    const { id, format } = file as { id: string; format: 'csv' | 'jsonl' };
    const type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
    return reply
      .code(200)
      .headers(outcome.headers)
      .type(type)
      .header('content-disposition', `attachment; filename="${id}.${format === 'csv' ? 'csv' : 'jsonl'}"`)
      .send(resultStream(pool, id, format));
  };

  for (const prefix of API_PREFIXES) {
    app.post(`${prefix}/match/jobs`, upload);
    app.get(`${prefix}/match/jobs/:id/results`, results);
  }
}

/** The streaming routes in the OpenAPI document. */
export const MATCH_JOB_ROUTES: readonly DocumentedRoute[] = [
  {
    method: 'post',
    path: '/match/jobs',
    servers: [],
    tag: 'Matching',
    operationId: 'createMatchJob',
    summary: 'Create a match job',
    description:
      `Uploads a list of up to ${MAX_JOB_ROWS.toLocaleString('en-US')} rows (CSV with a header row, or JSON lines) ` +
      'to be matched in the background; the query names the column of each field (a field not named is read from ' +
      'a column of its own name). Answers the queued job (202). Each row costs 1 credit as it is matched; the job ' +
      'stops when the balance runs out. With an Idempotency-Key, the same key answers the job it created.',
    params: UploadParams,
    fileBody: Object.keys(FORMATS),
    response: singleEnvelope(MatchJob),
    okStatus: 202,
    errors: [403],
  },
  {
    method: 'get',
    path: '/match/jobs/{id}/results',
    servers: [],
    tag: 'Matching',
    operationId: 'getMatchJobResults',
    summary: "Download a match job's results",
    description:
      'Every row of the job in file order with its fields, `match`, its best candidate, score and grades (blank for ' +
      'rows not yet matched) and `error` (`query_timeout` for a row whose search was stopped by the statement ' +
      'timeout: not charged), as CSV or JSON lines. Free of charge.',
    params: ResultParams,
    response: singleEnvelope(MatchJob),
    fileResponse: ['text/csv', 'application/x-ndjson'],
    errors: [404],
  },
];
