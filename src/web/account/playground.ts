// The playground: pick an operation, fill its parameters (a form generated from the OpenAPI document's
// parameters, themselves generated from the operation's zod schema), run it through the same-origin proxy
// with the session and see the JSON. It is a real call: it passes the pipeline and costs a credit.
import type { FastifyInstance } from 'fastify';
import type { Operation } from '../../api/operation.js';
import { csrfToken, type WebDeps } from '../context.js';
import { html, type Html } from '../html.js';
import { memberOf, render } from './shared.js';

type Json = Record<string, unknown>;

interface Param {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  description?: string;
  schema: Json;
}

function input(op: Operation, p: Param): Html {
  const id = `pg-${op.name}-${p.name}`;
  const s = p.schema;
  const items = (s.items ?? {}) as Json;
  const values = (s.enum ?? items.enum) as string[] | undefined;
  const attrs = html` id="${id}" name="${p.name}" data-in="${p.in}"${p.required ? html` required` : ''}`;
  let control: Html;
  if (values && s.type !== 'array')
    control = html`<select${attrs}><option value="">(default)</option>${values.map(
      (v) => html`<option>${v}</option>`,
    )}</select>`;
  else if (s.type === 'integer')
    control = html`<input
      type="number"
      ${attrs}${s.minimum !== undefined ? html` min="${s.minimum}"` : ''}${
        s.maximum !== undefined ? html` max="${s.maximum}"` : ''
      }
      placeholder="${s.default !== undefined ? String(s.default) : ''}"
    />`;
  else if (s.format === 'date') control = html`<input type="date" ${attrs} />`;
  else
    control = html`<input
      type="text"
      ${attrs}
      maxlength="${Number(s.maxLength ?? 200)}"
      ${s.type === 'array' ? html` placeholder="${values ? values.join(',') : 'one or more, comma-separated'}"` : ''}
    />`;
  return html`<div class="field">
    <label for="${id}">${p.name}${p.required ? ' *' : ''}</label>${control}
    ${p.description ? html`<p class="hint">${p.description}</p>` : ''}
  </div>`;
}

export async function playgroundRoutes(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const ops = deps.operations.filter((op) => !op.keyless && op.kind !== 'file' && op.kind !== 'stream');
  const paramsOf = (op: Operation): Param[] =>
    // The form holds the query and path parameters; headers (Idempotency-Key, a shared $ref) are not fields.
    (((deps.openapi.paths[op.path]?.get as Json | undefined)?.parameters ?? []) as Param[]).filter(
      (p) => p.name !== 'format' && (p.in === 'query' || p.in === 'path'),
    );

  app.get('/account/playground', async (req, reply) => {
    const m = memberOf(req);
    const fieldsets = ops.map(
      (op, i) =>
        html`<fieldset class="pg-op" data-op="${op.name}" data-path="${op.path}" ${i === 0 ? '' : html` hidden`}>
          <legend>${op.title} <code>GET /api/v1${op.path}</code></legend>
          <p class="hint">${op.description}</p>
          <div class="grid">${paramsOf(op).map((p) => input(op, p))}</div>
        </fieldset>`,
    );
    const body = html`<div class="card">
        <form id="playground" data-csrf="${csrfToken(req)}" novalidate>
          <div class="field">
            <label for="pg-operation">Operation</label>
            <select id="pg-operation">
              ${ops.map((op) => html`<option value="${op.name}">${op.title}</option>`)}
            </select>
          </div>
          ${fieldsets}
          <button type="submit" id="pg-run">Run</button>
          <span class="hint"
            >Each run is a real request: it costs one credit, like any call, and appears in the request log.</span
          >
        </form>
      </div>
      <div class="card" aria-live="polite">
        <h2>Answer</h2>
        <p id="pg-status" class="hint">Run an operation to see its answer.</p>
        <pre class="pg-result"><code id="pg-output"></code></pre>
      </div>`;
    return render(req, reply, deps, m, {
      title: 'Playground',
      section: '/account/playground',
      body,
      scripts: ['playground.js'],
    });
  });
}
