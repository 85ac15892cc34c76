// A dashboard list shown a page at a time (match jobs, exports, watches): the offset a page asks for, and the line
// under the table saying which rows these are, with links to the pages either side.
import type { FastifyRequest } from 'fastify';
import { html, num, type Html } from './html.js';

/** The query's `name` as a row offset: a positive integer, else 0 (a bad value shows the first page). */
export function askedOffset(req: FastifyRequest, name = 'offset'): number {
  const asked = Number((req.query as Record<string, string | undefined>)[name]);
  return Number.isSafeInteger(asked) && asked > 0 ? asked : 0;
}

export interface PagerOptions {
  readonly total: number;
  readonly offset: number;
  readonly shown: number;
  /** The address of the page starting at `offset`. */
  readonly href: (offset: number) => string;
  /** How the rows are ordered, as the line says it: "newest first". */
  readonly order: string;
  /** The links' words: towards the first rows, towards the last. */
  readonly labels: readonly [string, string];
}

/** "1 to 25 of 60, newest first." and the links either side; nothing when one page shows every row. */
export function pager(p: PagerOptions): Html {
  if (p.total <= p.shown) return html``;
  const link = (offset: number, text: string) => html`<a href="${p.href(offset)}">${text}</a>`;
  const last = Math.min(p.offset + p.shown, p.total);
  return html`<p class="hint">
    ${num(p.offset + 1)} to ${num(last)} of ${num(p.total)}, ${p.order}.
    ${p.offset > 0 ? link(Math.max(0, p.offset - p.shown), p.labels[0]) : ''}
    ${last < p.total ? link(last, p.labels[1]) : ''}
  </p>`;
}
