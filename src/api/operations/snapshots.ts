// Bulk snapshots (docs/contract.md, "Bulk snapshots"): the whole dataset as of an import, as files written by the
// background workers; listed newest first and read one at a time, each with its manifest and per-file download
// links that expire. For the plans with them in the catalog; the downloads, by their links, cost nothing more.
import { z } from 'zod';
import { SNAPSHOT_CALL_CREDITS } from '../../accounts/catalog.js';
import { getSnapshot, listSnapshots, type Snapshot } from '../../snapshots/store.js';
import { SNAPSHOTS_KEPT } from '../../snapshots/runner.js';
import { SNAPSHOT_FORMATS } from '../../snapshots/write.js';
import { RECORD_TABLE_NAMES } from '../../registry/feed/records.js';
import { ApiError } from '../errors.js';
import { defineOperation, type HandlerContext } from '../operation.js';
import { snapshotPlans } from '../refusals.js';
import { LINK_HOURS } from '../signed-links.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { USE_NOTE, wholeList } from './list.js';

const SnapshotFile = z.object({
  name: z.string().meta({ description: 'The file name: `entities.jsonl.gz`, `entities.parquet`, `filings...`.' }),
  table: z.enum(RECORD_TABLE_NAMES),
  format: z.enum(SNAPSHOT_FORMATS).meta({ description: 'jsonl: gzipped JSON lines; parquet: Parquet.' }),
  rows: z.number().int().meta({ description: 'Records in the file (the same in both formats of a table).' }),
  bytes: z.number().int(),
  sha256: z.string().meta({ description: "The file's SHA-256, hex: check it against the downloaded file." }),
  download: z
    .object({ url: z.string(), expires_at: z.string() })
    .meta({ description: `A link to the file that works without a key for ${LINK_HOURS} hours.` }),
});

export const SnapshotBody = z
  .object({
    id: z.string(),
    dataset_version: z.number().int().meta({ description: 'The dataset version the files hold (its import).' }),
    last_sequence: z.number().int().meta({
      description:
        "The change feed's last number the files include: follow on with GET /v1/changes?after_sequence= it.",
    }),
    imported_at: z.string().nullable().meta({ description: 'The last import the files include, UTC.' }),
    newest_file_date: z.string().nullable().meta({ description: "The newest registry file's date they include." }),
    created_at: z.string().meta({ description: 'When the files were complete, UTC.' }),
    files: z.array(SnapshotFile),
  })
  .meta({ id: 'Snapshot' });

/** A snapshot as answered: each file's fields in the schema's order (jsonb keeps its own), with a fresh link. */
const shown = (s: Snapshot, ctx: HandlerContext): z.output<typeof SnapshotBody> => ({
  ...s,
  files: s.files.map((f) => ({
    name: f.name,
    table: f.table,
    format: f.format,
    rows: f.rows,
    bytes: f.bytes,
    sha256: f.sha256,
    download: ctx.services.snapshots.links.link(`${s.id}/files/${f.name}`, ctx.now),
  })),
});

/** The plans, the downloads' price and the data-use note every tool's description ends with. */
const NOTE = () => `${snapshotPlans()} plans; downloading the files costs nothing more. ${USE_NOTE}`;

const listSnapshotsOperation = defineOperation({
  name: 'listSnapshots',
  tag: 'Snapshots',
  tool: 'list_snapshots',
  path: '/snapshots',
  title: 'List snapshots',
  description:
    `The bulk snapshots kept (the newest ${SNAPSHOTS_KEPT}), newest first: the whole dataset as of an import, each ` +
    'table as gzipped JSON lines and Parquet, with row counts, sizes, SHA-256 checksums and download links. ' +
    NOTE(),
  params: z.strictObject({}),
  kind: 'list',
  result: SnapshotBody,
  response: listEnvelope(SnapshotBody),
  metered: true,
  credits: () => SNAPSHOT_CALL_CREDITS,
  snapshots: true,
  errors: [403],
  async handle(_p, ctx) {
    const snapshots = await listSnapshots(ctx.services.snapshots.pool);
    return wholeList(snapshots.map((s) => shown(s, ctx)));
  },
});

const getSnapshotOperation = defineOperation({
  name: 'getSnapshot',
  tag: 'Snapshots',
  tool: 'get_snapshot',
  path: '/snapshots/{id}',
  title: 'Get a snapshot',
  description:
    "One bulk snapshot's manifest, `latest` for the newest: its dataset version, the change feed's last number it " +
    'includes (a mirror follows on with after_sequence), and its files with download links (new ones each time). ' +
    NOTE(),
  params: z.strictObject({
    id: z
      .string({ error: 'must be a snapshot id or latest' })
      .regex(/^(latest|sn_[0-9a-f]{24})$/, { error: 'must be a snapshot id (sn_ and 24 hex digits) or latest' })
      .meta({ description: 'The snapshot id, or `latest`.' }),
  }),
  kind: 'single',
  result: SnapshotBody,
  response: singleEnvelope(SnapshotBody),
  metered: true,
  credits: () => SNAPSHOT_CALL_CREDITS,
  snapshots: true,
  errors: [400, 403, 404],
  async handle(p, ctx) {
    const found = await getSnapshot(ctx.services.snapshots.pool, p.id === 'latest' ? null : p.id);
    if (!found)
      throw new ApiError(
        'not_found',
        p.id === 'latest'
          ? 'No snapshot yet: the first is written after the first import.'
          : `No snapshot ${p.id}: only the newest ${SNAPSHOTS_KEPT} are kept (GET /v1/snapshots lists them).`,
      );
    return { data: shown(found, ctx) };
  },
});

export const SNAPSHOT_OPERATIONS = [listSnapshotsOperation, getSnapshotOperation] as const;
