// Checks answers against the OpenAPI document the app serves: every response a test receives must
// validate against the schema documented for its path and status.
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';

type Json = Record<string, any>;

export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly templates: Array<{ path: string; re: RegExp }>;

  constructor(private readonly doc: Json) {
    (addFormatsPlugin as unknown as (a: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
    this.templates = Object.keys(doc.paths).map((p) => ({
      path: p,
      re: new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`),
    }));
  }

  /** Asserts `res` (to `method` `url` under /v1 or /api/v1) is documented and matches its schema. */
  check(url: string, res: LightMyRequestResponse, method: 'get' | 'post' | 'delete' = 'get'): void {
    const path = url.split('?')[0]!.replace(/^\/(api\/)?v1/, '');
    const template = this.templates.find((t) => t.re.test(path));
    assert.ok(template, `undocumented path ${path}`);
    const operation = this.doc.paths[template.path][method];
    assert.ok(operation, `undocumented ${method.toUpperCase()} ${template.path}`);
    const responses = operation.responses;
    const documented = responses[String(res.statusCode)];
    assert.ok(documented, `status ${res.statusCode} of ${template.path} is not documented`);
    const type = String(res.headers['content-type'] ?? '').split(';')[0]!;
    const media = documented.content?.[type];
    assert.ok(media, `content type ${type} of ${res.statusCode} ${template.path} is not documented`);
    if (type !== 'application/json') return;
    const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"openapi.json#/components/'));
    const validate = this.ajv.compile(schema);
    const ok = validate(res.json());
    assert.ok(
      ok,
      `${res.statusCode} ${template.path} does not match its schema: ${this.ajv.errorsText(validate.errors)}\n` +
        res.body.slice(0, 500),
    );
  }
}
