// The Reconciliation Service API v0.2's own JSON schemas (test/fixtures/reconciliation/, copied from the spec's
// repository): an answer of the service must validate against the one its kind names.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import addFormatsPlugin from 'ajv-formats';
import { projectRoot } from '../../src/config/paths.js';

const DIR = path.join(projectRoot, 'test', 'fixtures', 'reconciliation');
const BASE = 'https://reconciliation-api.github.io/specs/0.2/schemas/';

export type SpecSchema =
  | 'manifest'
  | 'reconciliation-query-batch'
  | 'reconciliation-result-batch'
  | 'suggest-entities-response'
  | 'suggest-properties-response'
  | 'suggest-types-response'
  | 'data-extension-query'
  | 'data-extension-response'
  | 'data-extension-property-proposal';

// The spec's schemas name the draft they follow loosely ("http://json-schema.org/schema#"); the manifest's
// `authentication` refers to the Swagger 2.0 schema, which is draft 04 and refers to draft 04's meta-schema. Their
// meta-schemas are not checked, and the draft-04 ones are read in Ajv's draft (below); the files stay as copied.
const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true });
(addFormatsPlugin as unknown as (a: Ajv) => void)(ajv);

/**
 * A draft-04 schema in the later drafts' words: `id` is the key it is added under, and a boolean `exclusiveMinimum`
 * or `exclusiveMaximum` becomes the bound itself (draft 06's change; the meaning is the same).
 */
function fromDraft04(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(fromDraft04);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = fromDraft04(v);
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else delete out[exclusive];
  }
  return out;
}

for (const file of readdirSync(DIR).filter((f) => f.endsWith('.json'))) {
  const schema = JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as Record<string, unknown>;
  if (String(schema.$schema).includes('draft-04')) {
    const { id, ...rest } = fromDraft04(schema) as Record<string, unknown>;
    ajv.addSchema(rest, String(id).replace(/#$/, ''));
  } else ajv.addSchema(schema, `${BASE}${file}`);
}

/** Asserts `value` is valid under the spec's schema `name`. */
export function assertSpecValid(name: SpecSchema, value: unknown): void {
  const validate = ajv.getSchema(`${BASE}${name}.json`);
  assert.ok(validate, `no schema ${name}`);
  assert.ok(validate(value), `not a valid ${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}

/** A new reconciliation credential of the workspace of `key`, made through the API as a customer makes one. */
export async function newCredential(app: { inject: FastifyInstance['inject'] }, key: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/reconcile-credentials',
    headers: { authorization: `Bearer ${key}` },
    payload: {},
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { data: { token: string } }).data.token;
}
