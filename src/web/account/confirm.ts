// The confirmation step of a change that cannot be undone (revoking a key, cancelling the plan): the first post
// only asks, on a page whose form sends `confirm=yes` with the same action. Plain HTML, so it works without
// JavaScript; a post without that field changes nothing.
import type { FastifyRequest } from 'fastify';
import { html, type Html } from '../html.js';
import { csrfField } from '../layout.js';

const CONFIRMED = 'yes';

/** Whether the form carries the confirmation. */
export const isConfirmed = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as Record<string, unknown>).confirm === CONFIRMED;

export interface Confirmation {
  readonly question: string;
  /** What happens, in words, before anyone presses the button. */
  readonly consequence: string | Html;
  /** Where the confirmed form posts (the same route as the first post). */
  readonly action: string;
  readonly button: string;
  /** The way out, which changes nothing. */
  readonly back: { readonly href: string; readonly label: string };
}

export function confirmationCard(req: FastifyRequest, c: Confirmation): Html {
  return html`<div class="card confirm">
    <h2>${c.question}</h2>
    <p>${c.consequence}</p>
    <form method="post" action="${c.action}" class="row">
      ${csrfField(req)}
      <input type="hidden" name="confirm" value="${CONFIRMED}" />
      <button type="submit" class="danger">${c.button}</button>
      <a class="button secondary" href="${c.back.href}">${c.back.label}</a>
    </form>
  </div>`;
}
