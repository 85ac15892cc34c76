// Match jobs (docs/matching.md, "Jobs"): list, read and cancel. A job is created by uploading its file and its
// results are downloaded as a file, both streamed outside the operation table (src/api/match-jobs.ts). Free: a job
// is charged per row as it runs.
import { z } from 'zod';
import { JOB_STATUSES, MATCH_FIELDS, cancelJob, getJob, listJobs } from '../../matching/jobs.js';
import { ApiError } from '../errors.js';
import { defineOperation, type HandlerContext } from '../operation.js';
import { pagination } from '../params.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { paged } from './list.js';

export const MatchJob = z
  .object({
    id: z.string(),
    status: z.enum(JOB_STATUSES),
    algorithm: z.string(),
    file_name: z.string().nullable(),
    format: z.enum(['csv', 'jsonl']),
    columns: z.partialRecord(z.enum(MATCH_FIELDS), z.string()).meta({ description: 'Which column holds each field.' }),
    total_rows: z.number().int(),
    done_rows: z.number().int().meta({ description: 'Rows matched (and charged) so far.' }),
    matched_rows: z.number().int().meta({ description: 'Of those, rows with a match.' }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'MatchJob' });

const jobId = z
  .string()
  .regex(/^mj_[0-9a-f]{24}$/, { error: 'must be a match job id (mj_ and 24 hex digits)' })
  .meta({ description: 'The job id.' });

const workspaceOf = (ctx: HandlerContext): string => ctx.caller!.workspaceId;

/** What reading and cancelling a job share: the id in the path, the job answered, free. */
const ONE_JOB = {
  tag: 'Matching',
  tool: null,
  params: z.strictObject({ id: jobId }),
  kind: 'single',
  result: MatchJob,
  response: singleEnvelope(MatchJob),
  metered: false,
  errors: [404],
} as const;
const notFound = (id: string): ApiError => new ApiError('not_found', `No match job ${id}.`);

const listMatchJobs = defineOperation({
  name: 'listMatchJobs',
  tag: 'Matching',
  tool: null,
  path: '/match/jobs',
  title: 'List match jobs',
  description: "The workspace's match jobs, newest first, with their progress. Free of charge.",
  params: z.strictObject({ ...pagination(25, 100) }),
  kind: 'list',
  result: MatchJob,
  response: listEnvelope(MatchJob),
  metered: false,
  errors: [],
  async handle(p, ctx) {
    return paged(ctx, this.name, p, async (page) => {
      const { jobs, total } = await listJobs(ctx.services.jobs, workspaceOf(ctx), page);
      return { hits: jobs, total };
    });
  },
});

const getMatchJob = defineOperation({
  ...ONE_JOB,
  name: 'getMatchJob',
  path: '/match/jobs/{id}',
  title: 'Get a match job',
  description:
    'One match job: its status (queued, running, completed, failed, cancelled), rows done and matched, and why it ' +
    'failed. Free of charge.',
  async handle(p, ctx) {
    const job = await getJob(ctx.services.jobs, workspaceOf(ctx), p.id);
    if (!job) throw notFound(p.id);
    return { data: job };
  },
});

const cancelMatchJob = defineOperation({
  ...ONE_JOB,
  name: 'cancelMatchJob',
  method: 'post',
  path: '/match/jobs/{id}/cancel',
  title: 'Cancel a match job',
  description:
    'Stops a queued or running job at its next chunk of rows; the rows done stay done, charged and downloadable. ' +
    'A finished job is answered as it is. Free of charge.',
  async handle(p, ctx) {
    const job = await cancelJob(ctx.services.jobs, workspaceOf(ctx), p.id, ctx.now);
    if (!job) throw notFound(p.id);
    return { data: job };
  },
});

export const MATCH_JOB_OPERATIONS = [listMatchJobs, getMatchJob, cancelMatchJob] as const;
