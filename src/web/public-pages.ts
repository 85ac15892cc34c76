// The public pages: the landing page, pricing (from the one catalog the gate and billing read), the
// data coverage (from the keyless status operation) and the API reference (the served OpenAPI document
// rendered by Swagger UI, bundled locally) with the MCP setup. docs/web.md, "Public pages".
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  OVERAGE_BLOCK_CENTS,
  OVERAGE_BLOCK_CREDITS,
  PACK_SLUGS,
  PACKS,
  PACK_VALID_MONTHS,
  PLANS,
  REFUND_DAYS,
  REFUND_MAX_USED_PERCENT,
  TRIAL_CAP,
  TRIAL_DAYS,
  formatUsd,
  type Plan,
} from '../accounts/catalog.js';
import type { DatasetReport } from '../registry/dataset-info.js';
import type { WebDeps } from './context.js';
import { html, num, when, type Html } from './html.js';
import { page } from './layout.js';

type Coverage = DatasetReport;

/** The dataset's report, as the keyless `/v1/status` answers it. */
const coverage = (deps: WebDeps): Promise<Coverage> => deps.dataset.report();

const statusPill = (s: Coverage['dataset_status']): Html =>
  html`<span class="pill ${s === 'live' ? 'ok' : s === 'stale' ? 'warn' : ''}">${s}</span>`;

function landing(req: FastifyRequest, deps: WebDeps, c: Coverage): string {
  const base = deps.publicBaseUrl;
  const body = html`<div class="wrap">
    <section class="hero">
      <h1>The Florida corporate registry, as an API.</h1>
      <p class="lead">
        Search ${num(c.counts.entities ?? 0)} companies, non-profits and partnerships by fuzzy name, officer, registered
        agent or address. Read any entity in full, follow the day's filings and get new businesses as a lead feed. REST
        for your code, MCP tools for your agents, refreshed from the registry every morning.
      </p>
      <div class="actions">
        <a class="button" href="/signup">Start free: 500 credits</a>
        <a class="button secondary" href="/docs">Read the docs</a>
      </div>
    </section>
    <div class="grid">
      <div class="card feature">
        <h3>Fuzzy search that forgives</h3>
        <p>
          Case, punctuation, accents, legal forms and small typos do not matter: <code>acme holdngs llc</code> finds
          ACME HOLDINGS, LLC. Exact totals, facets, sorts.
        </p>
      </div>
      <div class="card feature">
        <h3>Every entity in full</h3>
        <p>
          Status with the reason, type, dates, FEI/EIN, addresses, registered agent, officers, annual reports and the 50
          latest filings, by document number.
        </p>
      </div>
      <div class="card feature">
        <h3>Filings and leads</h3>
        <p>
          Each day's formations and events, recent filings, and a new-business feed by county with a daily CSV for your
          CRM.
        </p>
      </div>
      <div class="card feature">
        <h3>Made for agents too</h3>
        <p>
          The same eight operations as MCP tools at <code>/mcp</code>, drawing on the same credits. Plus
          <a href="/llms.txt">llms.txt</a> for AI assistants.
        </p>
      </div>
    </div>
    <h2>Try it without a key</h2>
    <pre><code>curl -s "${base}/v1/public/search?name=sunshine"
curl -s "${base}/v1/sample?limit=3"</code></pre>
    <p>
      Data is ${statusPill(c.dataset_status)}: newest registry file ${c.newest_file_date ?? '—'}, newest filing
      ${c.newest_filing_date ?? '—'}. See <a href="/data-coverage">data coverage</a>.
    </p>
    <h2>Data use</h2>
    <div class="card page-text">
      <p>
        Registry Lookup serves public records of the Florida Division of Corporations. It is
        <strong>not a consumer report</strong>: do not use it for credit, employment, insurance, housing, tenant
        screening or any other purpose covered by consumer-reporting law. Officer addresses are never returned.
      </p>
      <p>
        Registry Lookup is <strong>not the registry</strong> and is not affiliated with the Florida Division of
        Corporations or any other government body. For official records, ask the registry.
      </p>
    </div>
  </div>`;
  return page(req, {
    title: 'Florida corporate registry API',
    body,
    description: 'A read-only API and MCP server over the Florida corporate registry.',
  });
}

function planFeatures(p: Plan): string[] {
  const f = [
    p.unlimited
      ? 'Unlimited credits'
      : `${num(p.monthlyCredits)} credits ${p.slug === 'free_trial' ? 'once' : 'a month'}`,
    `${num(p.perMinute)} requests a minute`,
    p.surfaces.length === 2 ? 'REST and MCP' : p.surfaces[0] === 'mcp' ? 'MCP only' : 'REST only',
  ];
  if (p.csv) f.push('CSV answers');
  if (p.leadFeed) f.push('New-business lead feed');
  if (p.changeStreams > 0) f.push(`Live change stream (${num(p.changeStreams)} at once)`);
  if (p.snapshots) f.push('Daily bulk snapshots (JSON lines, Parquet)');
  if (p.overage) f.push(`Overage at ${formatUsd((OVERAGE_BLOCK_CENTS * 1000) / OVERAGE_BLOCK_CREDITS)} per 1,000`);
  return f;
}

function planCard(p: Plan, salesEmail: string): Html {
  const price =
    p.priceCents === null
      ? html`Custom`
      : p.priceCents === 0
        ? html`Free`
        : html`${formatUsd(p.priceCents)} <small>/ month</small>`;
  const cta =
    p.slug === 'enterprise'
      ? html`<a class="button secondary" href="mailto:${salesEmail}">Contact us</a>`
      : html`<a
          class="button${p.slug === 'free_trial' ? '' : ' secondary'}"
          href="/signup${p.slug === 'free_trial' ? '' : `?plan=${p.slug}`}"
          >${p.slug === 'free_trial' ? 'Start free' : `Choose ${p.name}`}</a
        >`;
  return html`<div class="card plan">
    <h3>${p.name}</h3>
    <div class="price">${price}</div>
    <ul>
      ${planFeatures(p).map((f) => html`<li>${f}</li>`)}
    </ul>
    ${cta}
  </div>`;
}

function pricing(req: FastifyRequest, deps: WebDeps): string {
  const packs = PACK_SLUGS.map((s) => {
    const p = PACKS[s];
    return html`<tr>
      <td>${p.title}</td>
      <td class="num">${num(p.credits)}</td>
      <td class="num">${formatUsd(p.priceCents)}</td>
      <td class="num">${formatUsd(Math.round((p.priceCents * 1000) / p.credits))}</td>
    </tr>`;
  });
  const body = html`<div class="wrap">
    <section class="hero">
      <h1>Pricing</h1>
      <p class="lead">
        One credit per request, whatever you ask. Start with ${num(PLANS.free_trial.monthlyCredits)} free credits,
        subscribe when you need more, top up with packs that last a year.
      </p>
    </section>
    <div class="plans">${Object.values(PLANS).map((p) => planCard(p, deps.company.salesEmail))}</div>
    <h2>Credit packs</h2>
    <div class="card">
      <div class="table-wrap" role="region" aria-label="Credit packs" tabindex="0">
        <table>
          <thead>
            <tr>
              <th>Pack</th>
              <th class="num">Credits</th>
              <th class="num">Price</th>
              <th class="num">Per 1,000</th>
            </tr>
          </thead>
          <tbody>
            ${packs}
          </tbody>
        </table>
      </div>
      <p class="hint">
        For every plan, the trial and MCP Starter included. Spent after the monthly credits, earliest expiry first;
        valid ${PACK_VALID_MONTHS} months. Refundable within ${REFUND_DAYS} days while no more than
        ${REFUND_MAX_USED_PERCENT}% is used. Packs add credits, not features.
      </p>
    </div>
    <h2>How credits work</h2>
    <div class="card page-text">
      <ul>
        <li>
          Every metered request costs one credit when it answers (a 404 "no such entity" too); errors, the keyless
          routes, usage and billing are free.
        </li>
        <li>Monthly credits renew at 00:00 UTC on the 1st; unused ones do not roll over.</li>
        <li>
          The free trial grants ${num(PLANS.free_trial.monthlyCredits)} credits once. After ${TRIAL_DAYS} days what is
          left is capped at ${num(TRIAL_CAP)}.
        </li>
        <li>
          Paid plans keep serving past their credits as overage, billed daily in blocks of ${OVERAGE_BLOCK_CREDITS}
          credits (${formatUsd(OVERAGE_BLOCK_CENTS)} each) on your next invoice; Enterprise and MCP Starter stop
          instead.
        </li>
        <li>
          Upgrades take effect at once, downgrades at the next monthly cycle (<a href="/docs#plan-changes"
            >what happens to this month's credits</a
          >).
        </li>
      </ul>
    </div>
  </div>`;
  return page(req, { title: 'Pricing', body, current: '/pricing' });
}

function dataCoverage(req: FastifyRequest, c: Coverage): string {
  const stat = (label: string, value: string | Html, sub = '') =>
    html`<div class="stat">
      <div class="label">${label}</div>
      <div class="value">${value}</div>
      <div class="sub">${sub}</div>
    </div>`;
  const n = (v: number | null) => (v === null ? '—' : num(v));
  const freshness = c.stale_since ? `stale since ${when(c.stale_since)}` : 'refreshed within 36 hours';
  const files = c.files_applied.map(
    (f) =>
      html`<tr>
        <td class="mono">${f.file}</td>
        <td>${f.kind}</td>
        <td>${f.file_date ?? '—'}</td>
      </tr>`,
  );
  const body = html`<div class="wrap">
    <section class="hero">
      <h1>Data coverage</h1>
      <p class="lead">
        What the API serves right now, from the Florida Division of Corporations' bulk files: a quarterly snapshot, then
        every daily file since.
      </p>
    </section>
    <div class="stats">
      ${stat('Dataset', statusPill(c.dataset_status), freshness)}
      ${stat('Entities', n(c.counts.entities), 'companies, non-profits, partnerships')}
      ${stat('Officers', n(c.counts.officers), 'names and titles')} ${stat('Filing events', n(c.counts.events))}
      ${stat('Registered agents', n(c.counts.agents))}
    </div>
    <h2>Freshness</h2>
    <div class="card">
      <div class="table-wrap" role="region" aria-label="Freshness" tabindex="0">
        <table>
          <tbody>
            <tr>
              <th scope="row">Newest registry file</th>
              <td>${c.newest_file_date ?? '—'}</td>
            </tr>
            <tr>
              <th scope="row">Newest filing date</th>
              <td>${c.newest_filing_date ?? '—'}</td>
            </tr>
            <tr>
              <th scope="row">Quarterly snapshot</th>
              <td>${c.snapshot_date ?? '—'}</td>
            </tr>
            <tr>
              <th scope="row">Last successful refresh</th>
              <td>${when(c.last_refresh_at)}</td>
            </tr>
            <tr>
              <th scope="row">Last file applied</th>
              <td>${when(c.last_import_at)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <p class="hint">
        Live while the last successful refresh is under 36 hours old, stale after that. Refreshed daily at 05:00 UTC.
        The same figures: <a href="/v1/status"><code>GET /v1/status</code></a
        >.
      </p>
    </div>
    <h2>Files of the last refresh</h2>
    <div class="card">
      ${
        files.length
          ? html`<div class="table-wrap" role="region" aria-label="Files of the last refresh" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th>File</th>
                    <th>Kind</th>
                    <th>File date</th>
                  </tr>
                </thead>
                <tbody>
                  ${files}
                </tbody>
              </table>
            </div>`
          : html`<p class="empty">The last refresh found nothing new on the registry's server.</p>`
      }
    </div>
  </div>`;
  return page(req, { title: 'Data coverage', body, current: '/data-coverage' });
}

function docs(req: FastifyRequest, deps: WebDeps): string {
  const base = deps.publicBaseUrl;
  const mcpConfig = JSON.stringify(
    { mcpServers: { 'registry-lookup': { url: `${base}/mcp`, headers: { Authorization: 'Bearer svc_live_...' } } } },
    null,
    2,
  );
  const body = html`<div class="wrap">
    <section class="hero">
      <h1>Documentation</h1>
      <p class="lead">
        REST under <code>${base}/v1</code>, MCP at <code>${base}/mcp</code>. Every request carries an API key from your
        <a href="/account/keys">account</a>.
      </p>
    </section>
    <div class="grid docs-grid">
      <div class="card">
        <h2>First request</h2>
        <pre><code>KEY=svc_live_...
curl -s "${base}/v1/entities/search?name=sunshine%20holdings&amp;limit=3" \\
  -H "Authorization: Bearer $KEY"</code></pre>
      </div>
      <div class="card">
        <h2>MCP for agents</h2>
        <p>
          Streamable HTTP, stateless, at <code>${base}/mcp</code>, with the same key. The eight operations are tools
          (<code>search_entities</code>, <code>get_entity</code>...). A client configuration:
        </p>
        <pre><code>${mcpConfig}</code></pre>
        <p class="hint">
          Plans with MCP: Developer and above, and MCP Starter. For AI assistants: <a href="/llms.txt">llms.txt</a>,
          <a href="/llms-full.txt">llms-full.txt</a>.
        </p>
      </div>
    </div>
    <h2 id="plan-changes">Plan changes</h2>
    <div class="card page-text">
      <p>
        <strong>Upgrading</strong> takes effect at once: the new plan's features and limit, and this month's credits
        topped up by the difference between the two plans' grants in proportion to what is left of the month (the price
        difference is charged for the same part of the month). <strong>Downgrading</strong> takes effect at the next
        monthly cycle: this month keeps the plan and credits paid for. <strong>Cancelling</strong> stops overage at once
        and bills it on a final invoice; the rest of the month's credits and packs stay yours.
      </p>
    </div>
    <h2>API reference</h2>
    <p>Generated from the <a href="/v1/openapi.json">OpenAPI document</a> the server validates with.</p>
    <div id="swagger-ui" class="card" data-spec="/v1/openapi.json"><p class="empty">Loading the reference…</p></div>
  </div>`;
  return page(req, {
    title: 'Docs',
    body,
    current: '/docs',
    scripts: ['vendor/swagger-ui/swagger-ui-bundle.js', 'docs.js'],
    styles: ['vendor/swagger-ui/swagger-ui.css', 'docs.css'],
  });
}

export async function publicPages(app: FastifyInstance, deps: WebDeps): Promise<void> {
  app.get('/', async (req, reply) =>
    reply.type('text/html; charset=utf-8').send(landing(req, deps, await coverage(deps))),
  );
  app.get('/pricing', async (req, reply) => reply.type('text/html; charset=utf-8').send(pricing(req, deps)));
  app.get('/data-coverage', async (req, reply) =>
    reply.type('text/html; charset=utf-8').send(dataCoverage(req, await coverage(deps))),
  );
  app.get('/docs', async (req, reply) => reply.type('text/html; charset=utf-8').send(docs(req, deps)));
}
