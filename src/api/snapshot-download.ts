// A snapshot's file by its link (docs/contract.md, "Bulk snapshots"): GET /v1/snapshots/{id}/files/{name}?expires=
// &signature=. The signed link is the credential (no key, so a browser or a data tool can fetch it); the file is
// streamed from the snapshot's directory, whatever its size, with its SHA-256 as the ETag.
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { snapshotFile, type SnapshotDownload } from '../snapshots/download.js';
import { FILE_NAMES } from '../snapshots/write.js';
import { ApiError } from './errors.js';
import type { DocumentedRoute } from './openapi.js';
import { parseOrRefuse } from './refusals.js';
import { errorReply } from './rest.js';
import { singleEnvelope } from './schemas.js';
import { invalidLink, LINK_HOURS, LINK_PARAMS, type SignedLinks } from './signed-links.js';
import { SnapshotBody } from './operations/snapshots.js';

export interface SnapshotDownloadDeps {
  readonly pool: pg.Pool;
  readonly dir: string;
  readonly links: SignedLinks;
  readonly clock: Clock;
}

const DownloadParams = z.strictObject({
  id: z.string().regex(/^sn_[0-9a-f]{24}$/, { error: 'must be a snapshot id (sn_ and 24 hex digits)' }),
  name: z.enum(FILE_NAMES as [string, ...string[]], { error: `must be one of ${FILE_NAMES.join(', ')}` }),
  ...LINK_PARAMS,
});

const INVALID_LINK = invalidLink('/v1/snapshots/{id}');

export async function snapshotDownloadRoutes(app: FastifyInstance, deps: SnapshotDownloadDeps): Promise<void> {
  const download = async (req: FastifyRequest, reply: FastifyReply) => {
    let found: SnapshotDownload | null;
    try {
      const p = parseOrRefuse(DownloadParams, { ...(req.query as object), ...(req.params as object) });
      if (!deps.links.valid(`${p.id}/files/${p.name}`, p.expires, p.signature, deps.clock.now()))
        throw new ApiError('forbidden', INVALID_LINK);
      found = await snapshotFile(deps.pool, deps.dir, p.id, p.name);
      if (!found) throw new ApiError('not_found', `Snapshot ${p.id} has no file ${p.name}: it is no longer kept.`);
    } catch (err) {
      if (err instanceof ApiError) return errorReply(reply, req.id, err);
      throw err;
    }
    return reply
      .type(found.contentType)
      .header('content-length', String(found.file.bytes))
      .header('etag', `"${found.file.sha256}"`)
      .header('content-disposition', `attachment; filename="${found.file.name}"`)
      .send(createReadStream(found.path));
  };
  for (const prefix of ['/v1', '/api/v1']) app.get(`${prefix}/snapshots/:id/files/:name`, download);
}

/** The download route in the OpenAPI document. */
export const SNAPSHOT_ROUTES: readonly DocumentedRoute[] = [
  {
    method: 'get',
    path: '/snapshots/{id}/files/{name}',
    servers: [],
    tag: 'Snapshots',
    operationId: 'downloadSnapshotFile',
    summary: "Download a snapshot's file",
    description:
      'One file of a snapshot, by the link its manifest gives (`files[].download.url`): no key needed, the link is ' +
      `signed and works for ${LINK_HOURS} hours. JSON lines come gzipped; Parquet as it is (compressed inside). ` +
      "The ETag is the file's SHA-256, as the manifest lists it.",
    params: DownloadParams,
    response: singleEnvelope(SnapshotBody),
    fileResponse: ['application/gzip', 'application/vnd.apache.parquet'],
    errors: [403, 404],
  },
];
