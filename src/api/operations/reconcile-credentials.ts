// The workspace's reconciliation credentials (docs/reconciliation.md, "The credential"): create one (its token and
// service URL shown once), list them, revoke one. Authenticated like every route, never metered, not MCP tools. A
// test key may list but not create: a credential spends the workspace's live credits.
import { z } from 'zod';
import {
  CredentialRefusal,
  createReconcileCredential,
  listReconcileCredentials,
  MAX_CREDENTIAL_NAME,
  revokeReconcileCredential,
} from '../../accounts/reconcile-credentials.js';
import { ApiError, badRequest } from '../errors.js';
import { defineOperation, type HandlerContext, type Operation } from '../operation.js';
import { text } from '../params.js';
import { serviceUrl } from '../reconcile/manifest.js';
import { listEnvelope, singleEnvelope } from '../schemas.js';
import { wholeList } from './list.js';
import { actor, who } from './monitoring-shared.js';

const Credential = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    hint: z.string().meta({ description: 'Its first and last characters, never enough to use it.' }),
    created_at: z.string(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable().meta({ description: 'The start of the minute of its last accepted call.' }),
    token: z
      .string()
      .optional()
      .meta({ description: 'Only in the answer of a creation: keep it, it is not shown again.' }),
    service_url: z
      .string()
      .optional()
      .meta({ description: 'Only in the answer of a creation: the URL to add in OpenRefine, token included.' }),
  })
  .meta({ id: 'ReconcileCredential' });

const credentialId = z
  .string()
  .regex(/^rcn_[0-9A-Za-z]{16}$/, { error: 'must be a credential id starting rcn_' })
  .meta({ description: 'The credential id.' });

async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof CredentialRefusal)) throw err;
    if (err.kind === 'bad_request') throw badRequest({}, err.message);
    throw new ApiError('forbidden', err.message);
  }
}

const listCredentials = defineOperation({
  name: 'listReconcileCredentials',
  tag: 'Account',
  tool: null,
  path: '/reconcile-credentials',
  title: 'List reconciliation credentials',
  description: "The workspace's reconciliation credentials, revoked ones included (tokens are never listed). Free.",
  params: z.strictObject({}),
  kind: 'list',
  result: Credential,
  response: listEnvelope(Credential),
  metered: false,
  errors: [],
  async handle(_p, ctx) {
    const rows = await listReconcileCredentials(ctx.services.credentials.pool, who(ctx).workspace);
    return wholeList(rows);
  },
});

/** A credential spends live credits: a test key's call may not make one. */
function refuseTestKey(ctx: HandlerContext): void {
  if (ctx.caller!.keyKind === 'test')
    throw new ApiError('forbidden', 'A test key cannot create a reconciliation credential: it spends live credits.');
}

const createCredential = defineOperation({
  name: 'createReconcileCredential',
  tag: 'Account',
  tool: null,
  method: 'post',
  path: '/reconcile-credentials',
  title: 'Create a reconciliation credential',
  description:
    'A credential for the reconciliation service (OpenRefine): the answer holds its token and the service URL, ' +
    "shown this once. Calls with it spend the workspace's live credits. Live keys, or the owner in the web app. Free.",
  params: z.strictObject({
    name: text(1, MAX_CREDENTIAL_NAME, 'A name to tell it apart (the project it is for).').optional(),
  }),
  kind: 'single',
  result: Credential,
  response: singleEnvelope(Credential),
  metered: false,
  errors: [403],
  async handle(p, ctx) {
    refuseTestKey(ctx);
    const s = ctx.services.credentials;
    const made = await refusing(() =>
      createReconcileCredential(s.pool, who(ctx).workspace, p.name ?? null, s.pepper, s.clock, actor(ctx)),
    );
    return { data: { ...made, service_url: serviceUrl(s.baseUrl, made.token) } };
  },
});

const revokeCredential = defineOperation({
  name: 'revokeReconcileCredential',
  tag: 'Account',
  tool: null,
  method: 'delete',
  path: '/reconcile-credentials/{id}',
  title: 'Revoke a reconciliation credential',
  description: 'The credential fails from its very next call. Live keys, or the owner in the web app. Free.',
  params: z.strictObject({ id: credentialId }),
  kind: 'single',
  result: Credential,
  response: singleEnvelope(Credential),
  metered: false,
  errors: [403, 404],
  async handle(p, ctx) {
    refuseTestKey(ctx);
    const s = ctx.services.credentials;
    const revoked = await refusing(() =>
      revokeReconcileCredential(s.pool, who(ctx).workspace, p.id, s.clock, actor(ctx)),
    );
    if (!revoked) throw new ApiError('not_found', `No working reconciliation credential ${p.id}.`);
    return { data: revoked };
  },
});

export const RECONCILE_CREDENTIAL_OPERATIONS: readonly Operation[] = [
  listCredentials,
  createCredential,
  revokeCredential,
] as unknown as readonly Operation[];
