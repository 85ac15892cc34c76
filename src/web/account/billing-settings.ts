// The billing page's settings (owner only; members read them): the billing details printed on the
// documents issued from then on, the low-balance alert and the monthly spending cap on overage. Each form
// is checked by its zod schema; a refusal is shown under its field and changes nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { formatUsd } from '../../accounts/catalog.js';
import { BillingDetailsInput, countryName, setBillingDetails, type BillingDetails } from '../../billing/details.js';
import { CapInput, setLowBalanceThreshold, setOverageCap, ThresholdInput, type Limits } from '../../billing/limits.js';
import type { WebDeps } from '../context.js';
import { parseForm, sentBack, type FieldErrors } from '../forms.js';
import { html, num, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import { type Member, memberOf, ownerOnly } from './shared.js';

/** A refused form, shown again with its values and errors. */
export interface RefusedForm {
  readonly form: 'details' | 'threshold' | 'cap';
  readonly errors: FieldErrors;
  readonly body: unknown;
}

type Again = (req: FastifyRequest, reply: FastifyReply, m: Member, refused: RefusedForm) => Promise<FastifyReply>;

export const SETTINGS_NOTICES = {
  details_saved: 'Billing details saved: documents issued from now on carry them.',
  threshold_saved: 'Low-balance alert saved.',
  cap_saved: 'Monthly spending cap saved.',
} as const;

const fieldError = (refused: RefusedForm | null, form: RefusedForm['form'], field: string) => {
  const e = refused?.form === form ? refused.errors[field] : undefined;
  return e ? html`<p class="hint field-error" role="alert">${e}</p>` : '';
};

/** The value a field shows: what was sent when the form was refused, else what is saved. */
const shown = (refused: RefusedForm | null, form: RefusedForm['form'], field: string, saved: string): string =>
  refused?.form === form ? sentBack(refused.body, field) : saved;

const taxLine = (taxId: string | null) => (taxId ? html`<br />Tax id ${taxId}` : '');

export function detailsSection(
  req: FastifyRequest,
  owner: boolean,
  d: BillingDetails | null,
  refused: RefusedForm | null,
): Html {
  if (!owner) {
    return html`<div class="card">
      <h2>Billing details</h2>
      ${
        d
          ? html`<p>${d.company}<br />${d.address}<br />${countryName(d.country)}${taxLine(d.tax_id)}</p>`
          : html`<p class="empty">None set: documents name the workspace and the owner's address.</p>`
      }
    </div>`;
  }
  const v = (field: string, saved: string | null | undefined) => shown(refused, 'details', field, saved ?? '');
  const err = (field: string) => fieldError(refused, 'details', field);
  return html`<div class="card">
    <h2>Billing details</h2>
    <p class="hint">
      Printed on the receipts, invoices and credit notes issued from now on; documents already issued keep the details
      they were issued with.
    </p>
    ${err('form')}
    <form method="post" action="/account/billing/details" novalidate>
      ${csrfField(req)}
      <div class="field">
        <label for="company">Company or name</label>
        <input
          type="text"
          id="company"
          name="company"
          maxlength="200"
          required
          value="${v('company', d?.company)}"
        />${err('company')}
      </div>
      <div class="field">
        <label for="address">Address</label>
        <textarea id="address" name="address" rows="3" maxlength="500" required>${v('address', d?.address)}</textarea
        >${err('address')}
      </div>
      <div class="field">
        <label for="country">Country (two-letter code)</label>
        <input
          type="text"
          id="country"
          name="country"
          maxlength="2"
          required
          value="${v('country', d?.country)}"
        />${err('country')}
      </div>
      <div class="field">
        <label for="tax_id">Tax id (optional)</label>
        <input type="text" id="tax_id" name="tax_id" maxlength="50" value="${v('tax_id', d?.tax_id)}" />${err('tax_id')}
      </div>
      <div class="field">
        <label for="billing_email">Billing email (optional; alerts go there too)</label>
        <input
          id="billing_email"
          name="email"
          type="email"
          maxlength="254"
          value="${v('email', d?.email)}"
        />${err('email')}
      </div>
      <button type="submit">Save billing details</button>
    </form>
  </div>`;
}

export function limitsSection(req: FastifyRequest, owner: boolean, l: Limits, refused: RefusedForm | null): Html {
  const threshold = l.low_balance_threshold === null ? 'off' : `at ${num(l.low_balance_threshold)} credits`;
  const cap = l.overage_cap_cents === null ? 'none' : `${formatUsd(l.overage_cap_cents)} a month`;
  const state = html`<p>
    Low-balance alert:
    <strong>${threshold}</strong>${l.low_balance_alerted ? ' (sent; re-armed when the balance is above it again)' : ''}.
    Spending cap on overage: <strong>${cap}</strong>; overage this month so far
    ${formatUsd(l.overage_this_month_cents)}.
  </p>`;
  if (!owner)
    return html`<div class="card">
      <h2>Alerts and limits</h2>
      ${state}
    </div>`;
  const capSaved = l.overage_cap_cents === null ? '' : formatUsd(l.overage_cap_cents).slice(1).replace(/,/g, '');
  return html`<div class="card">
    <h2>Alerts and limits</h2>
    ${state}
    <form method="post" action="/account/billing/alert" class="row" novalidate>
      ${csrfField(req)}
      <div class="field">
        <label for="threshold">Mail me when the balance falls to (credits)</label>
        <input
          type="text"
          id="threshold"
          name="threshold"
          inputmode="numeric"
          value="${shown(refused, 'threshold', 'threshold', String(l.low_balance_threshold ?? ''))}"
        />
        ${fieldError(refused, 'threshold', 'threshold')}${fieldError(refused, 'threshold', 'form')}
      </div>
      <div class="field"><button type="submit">Save alert</button></div>
    </form>
    <form method="post" action="/account/billing/cap" class="row" novalidate>
      ${csrfField(req)}
      <div class="field">
        <label for="cap">Monthly spending cap on overage (USD)</label>
        <input type="text" id="cap" name="cap" inputmode="decimal" value="${shown(refused, 'cap', 'cap', capSaved)}" />
        ${fieldError(refused, 'cap', 'cap')}${fieldError(refused, 'cap', 'form')}
      </div>
      <div class="field"><button type="submit">Save cap</button></div>
    </form>
    <p class="hint">
      Empty turns either off. The alert is mailed once each time the balance falls to it. Past the cap, requests that
      would be overage are refused (402) until the next month; plan and pack credits keep working.
    </p>
  </div>`;
}

/** The three forms' routes; a refusal is answered by `again` (the billing page with the errors). */
export function settingsRoutes(app: FastifyInstance, deps: WebDeps, again: Again): void {
  const post = <S extends z.ZodObject>(
    path: string,
    form: RefusedForm['form'],
    schema: S,
    apply: (m: Member, data: z.output<S>) => Promise<void>,
  ) =>
    app.post(path, { preHandler: ownerOnly(deps) }, async (req, reply) => {
      const m = memberOf(req);
      const parsed = parseForm(schema, req.body);
      if (!parsed.ok) return again(req, reply, m, { form, errors: parsed.errors, body: req.body });
      await apply(m, parsed.data);
      return reply.redirect(`/account/billing?done=${form}_saved`, 303);
    });
  post('/account/billing/details', 'details', BillingDetailsInput, (m, d) =>
    setBillingDetails(deps.pool, m.workspaceId, d, deps.clock.now()),
  );
  post('/account/billing/alert', 'threshold', ThresholdInput, (m, d) =>
    setLowBalanceThreshold(deps.pool, m.workspaceId, d.threshold),
  );
  post('/account/billing/cap', 'cap', CapInput, (m, d) => setOverageCap(deps.pool, m.workspaceId, d.cap));
}
