// Payment history with the local checkout: a receipt for a pack and for each plan payment, a credit note
// for a refund, an invoice for overage kept here; numbered without gaps, amounts in cents, the billing
// details as they were when each was issued; HTML and PDF for any member, 404 for another workspace.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adjustCredits } from '../src/accounts/workspaces.js';
import { issueMissingDocuments } from '../src/billing/document-sources.js';
import { listDocuments, type BillingDocument } from '../src/billing/documents.js';
import { billOverage } from '../src/billing/overage.js';
import { testApp, type TestApp } from './support/app.js';
import { WebClient } from './support/web.js';

// Half of March is left at noon on the 16th: the plan payments are $9.50 (Developer) and $15.00 (to Pro).
const MID_MARCH = '2026-03-16T12:00:00Z';

let t: TestApp;
let owner: WebClient;
let ws: string;

before(async () => {
  t = await testApp({ now: MID_MARCH });
  owner = new WebClient(t, '10.6.0.1');
  await owner.signUp('owner@example.com');
  ws = (await t.db.pool.query<{ id: string }>('SELECT id FROM workspaces')).rows[0]!.id;
});
after(() => t.close());

const docs = async (): Promise<BillingDocument[]> => (await listDocuments(t.db.pool, ws)).reverse();

/** Posts a billing form and pays the local checkout it leads to, if any. */
async function pay(path: string, fields: Record<string, string>): Promise<void> {
  await owner.get('/account/billing');
  const res = await owner.post(path, fields);
  assert.equal(res.statusCode, 303, res.body.slice(0, 300));
  const checkout = /\/checkout\/(chk_\w+)$/.exec(String(res.headers.location))?.[1];
  assert.ok(checkout, String(res.headers.location));
  assert.equal((await t.app.http.inject({ method: 'POST', url: `/checkout/${checkout}/complete` })).statusCode, 303);
}

describe('receipts on the local checkout', () => {
  it('a pack and two plan payments each get a receipt, numbered in turn, in exact cents', async () => {
    await pay('/account/billing/packs', { slug: 'starter' });
    await pay('/account/billing/plan', { plan: 'developer' });
    await pay('/account/billing/plan', { plan: 'pro' });
    const d = await docs();
    assert.deepEqual(
      d.map((x) => [x.number, x.kind, x.provider, x.total_cents]),
      [
        ['RL-000001', 'receipt', 'local', 500],
        ['RL-000002', 'receipt', 'local', 950],
        ['RL-000003', 'receipt', 'local', 1500],
      ],
    );
    assert.deepEqual(d[0]!.lines, [
      {
        description: 'Starter credit pack: 1,000 credits, valid 12 months',
        quantity: 1,
        unit_cents: 500,
        amount_cents: 500,
      },
    ]);
    assert.match(d[1]!.lines[0]!.description, /^Developer plan subscription: the rest of March 2026 from 2026-03-16/);
    assert.match(d[2]!.lines[0]!.description, /^Upgrade to the Pro plan: the price difference/);
    assert.equal(d[0]!.issued_at, '2026-03-16T12:00:00Z');
    assert.equal(d[0]!.seller.name, 'Registry Lookup');
    // No details set yet: the workspace's name and the owner's address.
    assert.equal(d[0]!.buyer.email, 'owner@example.com');
    assert.equal(d[0]!.buyer.tax_id, null);
  });

  it('the billing page lists them with links to the HTML and the PDF', async () => {
    const page = (await owner.get('/account/billing')).body;
    assert.match(page, /Payment history/);
    for (const [n, amount] of [
      ['RL-000001', '\\$5\\.00'],
      ['RL-000002', '\\$9\\.50'],
      ['RL-000003', '\\$15\\.00'],
    ])
      assert.match(page, new RegExp(`${n}</a>[\\s\\S]*?${amount}`));
  });

  it('billing details: refused with the reason under each field and nothing saved', async () => {
    await owner.get('/account/billing');
    const res = await owner.post('/account/billing/details', {
      company: '',
      address: 'x'.repeat(501),
      country: 'XX',
      tax_id: 'DE<123>',
      email: 'not-an-address',
    });
    assert.equal(res.statusCode, 400);
    for (const message of [
      'Enter the company or your name.',
      'An address has at most 500 characters.',
      'Enter a country as its two-letter ISO code',
      'A tax id has letters, digits',
      'Enter an email address such as billing@example.com.',
    ])
      assert.ok(res.body.includes(message), message);
    assert.equal((await t.db.pool.query('SELECT 1 FROM billing_details')).rowCount, 0);
  });

  it('details set are printed on documents issued after; earlier ones keep theirs', async () => {
    await owner.get('/account/billing');
    const res = await owner.post('/account/billing/details', {
      company: 'Sunshine Research LLC',
      address: '100 Main St\r\nSuite 4\r\nTampa, FL 33602',
      country: 'us',
      tax_id: '12-3456789',
      email: 'billing@sunshine.example',
    });
    assert.equal(res.headers.location, '/account/billing?done=details_saved');
    await pay('/account/billing/packs', { slug: 'investigator' });
    const d = await docs();
    assert.deepEqual(d.at(-1)!.buyer, {
      name: 'Sunshine Research LLC',
      address: '100 Main St\nSuite 4\nTampa, FL 33602',
      country: 'US',
      tax_id: '12-3456789',
      email: 'billing@sunshine.example',
    });
    assert.equal(d.at(-1)!.total_cents, 2_300);
    assert.equal(d[0]!.buyer.tax_id, null, 'issued before: unchanged');
    await assert.rejects(t.db.pool.query("UPDATE billing_documents SET total_cents = 1 WHERE number = 'RL-000001'"));
  });

  it('a refund is a credit note of the full price, negative', async () => {
    const { rows } = await t.db.pool.query<{ id: string }>(
      "SELECT id FROM checkouts WHERE slug = 'investigator' AND workspace_id = $1",
      [ws],
    );
    await owner.get('/account/billing');
    assert.equal(
      (await owner.post(`/account/billing/refunds/${rows[0]!.id}`)).headers.location,
      '/account/billing?done=refunded',
    );
    const note = (await docs()).at(-1)!;
    assert.equal(note.kind, 'credit_note');
    assert.equal(note.number, 'RL-000005');
    assert.equal(note.total_cents, -2_300);
    assert.equal(note.lines[0]!.amount_cents, -2_300);
  });

  it('the HTML view and the PDF, for the owner and a member; another workspace gets 404', async () => {
    const d = (await docs())[0]!;
    const view = await owner.get(`/account/billing/documents/${d.id}`);
    assert.equal(view.statusCode, 200);
    for (const s of ['Receipt RL-000001', 'Starter credit pack', '$5.00', 'Registry Lookup', 'owner@example.com'])
      assert.ok(view.body.includes(s), s);
    const pdf = await owner.get(`/account/billing/documents/${d.id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.headers['content-disposition'], 'attachment; filename="RL-000001.pdf"');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.ok(pdf.rawPayload.includes('(Receipt RL-000001)'), 'the title in the document information');

    // A member (invited by mail) may read them, and not change the billing details.
    await owner.get('/account/members');
    await owner.post('/account/members', { email: 'carol@example.com' });
    const carol = new WebClient(t, '10.6.0.2');
    // Invited before she signs up: verifying her address makes her a member.
    await carol.verifiedSignUp('carol@example.com');
    assert.equal((await carol.get(`/account/billing/documents/${d.id}`)).statusCode, 200);
    assert.equal((await carol.get(`/account/billing/documents/${d.id}/pdf`)).statusCode, 200);
    await carol.get('/account/billing');
    const refused = await carol.post('/account/billing/details', { company: 'Carol', address: 'x', country: 'US' });
    assert.equal(refused.statusCode, 403);

    const stranger = new WebClient(t, '10.6.0.3');
    await stranger.signUp('stranger@example.com');
    assert.equal((await stranger.get(`/account/billing/documents/${d.id}`)).statusCode, 404);
    assert.equal((await stranger.get(`/account/billing/documents/${d.id}/pdf`)).statusCode, 404);
    assert.equal((await stranger.get('/account/billing/documents/doc_nonsense')).statusCode, 404);
  });
});

describe('overage invoices and documents missing', () => {
  it('an overage invoice kept here is documented when issued, with a line per day', async () => {
    const { workspace, key: created } = await t.workspace('developer');
    const key = created.key;
    await adjustCredits(t.db.pool, workspace.id, -10_000, 'test: the month used up', t.clock);
    for (let i = 0; i < 11; i++) assert.equal((await t.get('/v1/entities/search?name=acme', key)).statusCode, 200);
    await billOverage(t.db.pool, new Date('2026-03-17T00:00:00Z'), t.clock.now());
    await billOverage(t.db.pool, new Date('2026-04-01T00:00:00Z'), t.clock.now());
    const d = await listDocuments(t.db.pool, workspace.id);
    assert.equal(d.length, 1);
    assert.equal(d[0]!.kind, 'invoice');
    assert.deepEqual(d[0]!.lines, [
      { description: 'API overage 2026-03-16: 11 credits', quantity: 1, unit_cents: 10, amount_cents: 10 },
    ]);
    assert.equal(d[0]!.total_cents, 10);
  });

  it('payments recorded without their document get one, once', async () => {
    const { workspace } = await t.workspace('pro');
    await t.db.pool.query(
      `INSERT INTO checkouts (id, workspace_id, kind, slug, credits, amount_cents, currency, provider, status,
                              created_at, expires_at, paid_at)
       VALUES ('chk_legacy', $1, 'plan', 'pro', 25000, 2450, 'usd', 'local', 'paid', $2, $2, $2)`,
      [workspace.id, '2026-03-02T10:00:00Z'],
    );
    assert.equal(await issueMissingDocuments(t.db.pool), 1);
    assert.equal(await issueMissingDocuments(t.db.pool), 0);
    const d = await listDocuments(t.db.pool, workspace.id);
    assert.equal(d[0]!.total_cents, 2_450);
    assert.equal(d[0]!.issued_at, '2026-03-02T10:00:00Z');
  });
});
