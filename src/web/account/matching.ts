// The Matching page (docs/web.md, "Matching"): any member uploads a list to match (the page's script sends the file
// to POST /api/v1/match/jobs through the same-origin proxy, so the upload meets the API's own checks and refusals),
// follows the jobs' progress, cancels a running job after a confirmation, and downloads the results.
//
// Progress and downloads are read here, with the session, not on the proxy: the proxy wants the CSRF header on GETs
// too, which a plain download link cannot send, and every proxied call counts in the workspace's per-minute window
// (a free trial's 30 a minute would be spent by polling alone).
import type { FastifyInstance } from 'fastify';
import { billingBalance } from '../../billing/balance.js';
import { cancelJob, getJob, listJobs } from '../../matching/jobs.js';
import { resultStream } from '../../matching/results.js';
import type { WebDeps } from '../context.js';
import type { Notice } from '../layout.js';
import { confirmationCard, isConfirmed } from './confirm.js';
import { isRunning, matchingBody } from './matching-page.js';
import { askedOffset } from '../pager.js';
import { memberOf, noticeFrom, render, type Member } from './shared.js';

/** Jobs on one page: a month of daily uploads; the rest are a link away. */
const JOBS_SHOWN = 25;

const PAGE = '/account/matching' as const;
const JOB_ID = /^mj_[0-9a-f]{24}$/;

const NOTICES: Record<string, Notice> = {
  started: { kind: 'ok', text: 'The job is queued: its progress moves below as rows are matched.' },
  cancelled: { kind: 'ok', text: 'The job is cancelled: the rows done stay done, charged and downloadable.' },
  not_found: { kind: 'error', text: 'This workspace has no such match job.' },
};

/** The results' file name: the upload's own name with `-matched`, or the job's id. */
function downloadName(job: { id: string; file_name: string | null }, ext: 'csv' | 'jsonl'): string {
  const stem = (job.file_name ?? '').replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_-]+/g, '_');
  return `${stem ? `${stem}-matched` : job.id}.${ext}`;
}

export async function matchingRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { pool, clock } = deps;
  const jobOf = (m: Member, id: string) => (JOB_ID.test(id) ? getJob(pool, m.workspaceId, id) : null);

  app.get(PAGE, async (req, reply) => {
    const m = memberOf(req);
    const offset = askedOffset(req);
    const [balance, { jobs, total }] = await Promise.all([
      billingBalance(pool, m.workspaceId, clock.now()),
      listJobs(pool, m.workspaceId, { limit: JOBS_SHOWN, offset }),
    ]);
    const view = { balance: balance.balance, jobs: { rows: jobs, total, offset, shown: JOBS_SHOWN } };
    return render(req, reply, deps, m, {
      title: 'Matching',
      section: PAGE,
      body: matchingBody(req, view),
      notice: noticeFrom(req, NOTICES),
      scripts: ['matching.js'],
    });
  });

  // One job as the API answers it, for the page's script to move a running job's progress bar.
  app.get<{ Params: { id: string } }>(`${PAGE}/jobs/:id`, async (req, reply) => {
    const job = await jobOf(memberOf(req), req.params.id);
    reply.header('cache-control', 'no-store');
    return job ? { data: job } : reply.code(404).send({ error: { code: 'not_found', message: 'No such match job.' } });
  });

  app.get<{ Params: { id: string } }>(`${PAGE}/jobs/:id/results`, async (req, reply) => {
    const job = await jobOf(memberOf(req), req.params.id);
    if (!job) return reply.redirect(`${PAGE}?done=not_found`, 303);
    const format = (req.query as { format?: string }).format === 'jsonl' ? 'jsonl' : 'csv';
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="${downloadName(job, format)}"`)
      .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .send(resultStream(pool, job.id, format));
  });

  app.post<{ Params: { id: string } }>(`${PAGE}/jobs/:id/cancel`, async (req, reply) => {
    const m = memberOf(req);
    const job = await jobOf(m, req.params.id);
    if (!job) return reply.redirect(`${PAGE}?done=not_found`, 303);
    if (!isRunning(job)) return reply.redirect(PAGE, 303);
    // The first post asks: a cancelled job cannot go on, its unmatched rows stay unmatched.
    if (!isConfirmed(req.body))
      return render(req, reply, deps, m, {
        title: 'Matching',
        section: PAGE,
        body: confirmationCard(req, {
          question: `Cancel the job ${job.file_name ? `"${job.file_name}"` : job.id}?`,
          consequence:
            job.status === 'queued'
              ? 'It never starts: none of its rows is matched or charged. A cancelled job cannot be resumed.'
              : `It stops at its next chunk of rows. The ${job.done_rows.toLocaleString('en-US')} rows done so far ` +
                'stay done, charged and downloadable; the others are never matched. A cancelled job cannot be resumed.',
          action: `${PAGE}/jobs/${job.id}/cancel`,
          button: 'Cancel the job',
          back: { href: PAGE, label: 'Keep it running' },
        }),
      });
    await cancelJob(pool, m.workspaceId, job.id, clock.now());
    return reply.redirect(`${PAGE}?done=cancelled`, 303);
  });
}
