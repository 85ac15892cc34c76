// An export's file by its link (docs/exports.md, "Downloading"): GET /v1/exports/{id}/download?expires=&signature=.
// The signed link is the credential (no key, so a browser or a data tool can fetch it); the file is streamed part by
// part from the database, whatever its size.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { exportFile, type Download } from '../exports/download.js';
import { invalidLink, LINK_HOURS, LINK_PARAMS, type SignedLinks } from './signed-links.js';
import { ApiError } from './errors.js';
import type { DocumentedRoute } from './openapi.js';
import { parseOrRefuse } from './refusals.js';
import { errorReply } from './rest.js';
import { singleEnvelope } from './schemas.js';
import { ExportBody } from './operations/exports.js';

export interface ExportDownloadDeps {
  readonly pool: pg.Pool;
  readonly links: SignedLinks;
  readonly clock: Clock;
}

const DownloadParams = z.strictObject({
  id: z.string().regex(/^ex_[0-9a-f]{24}$/, { error: 'must be an export id (ex_ and 24 hex digits)' }),
  ...LINK_PARAMS,
});

const INVALID_LINK = invalidLink('/v1/exports/{id}');

export async function exportDownloadRoutes(app: FastifyInstance, deps: ExportDownloadDeps): Promise<void> {
  const download = async (req: FastifyRequest, reply: FastifyReply) => {
    let file: Download | null;
    try {
      const p = parseOrRefuse(DownloadParams, { ...(req.query as object), ...(req.params as object) });
      if (!deps.links.valid(p.id, p.expires, p.signature, deps.clock.now()))
        throw new ApiError('forbidden', INVALID_LINK);
      file = await exportFile(deps.pool, p.id);
      if (!file) throw new ApiError('not_found', `Export ${p.id} has no file: it is not completed, or no longer kept.`);
    } catch (err) {
      if (err instanceof ApiError) return errorReply(reply, req.id, err);
      throw err;
    }
    return reply
      .type(file.contentType)
      .header('content-length', String(file.bytes))
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .send(Readable.from(file.parts));
  };
  for (const prefix of ['/v1', '/api/v1']) app.get(`${prefix}/exports/:id/download`, download);
}

/** The download route in the OpenAPI document. */
export const EXPORT_ROUTES: readonly DocumentedRoute[] = [
  {
    method: 'get',
    path: '/exports/{id}/download',
    servers: [],
    tag: 'Exports',
    operationId: 'downloadExport',
    summary: "Download an export's file",
    description:
      'The file of a completed export, by the link its export gives (`download.url`): no key needed, the link is ' +
      `signed and works for ${LINK_HOURS} hours. CSV and JSON lines come gzipped; Parquet as it is (compressed ` +
      'inside).',
    params: DownloadParams,
    response: singleEnvelope(ExportBody),
    fileResponse: ['application/gzip', 'application/vnd.apache.parquet'],
    errors: [403, 404],
  },
];
