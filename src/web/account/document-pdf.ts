// A billing document as a PDF, drawn with pdfkit in its standard fonts (nothing to fetch, nothing to
// embed): the same content as the HTML view, for the customer's books.
import PDFDocument from 'pdfkit';
import { formatUsd } from '../../accounts/catalog.js';
import type { BillingDocument, Party } from '../../billing/documents.js';
import { countryName } from '../../billing/details.js';

export const DOCUMENT_TITLES = { receipt: 'Receipt', invoice: 'Invoice', credit_note: 'Credit note' } as const;

/** The lines of a party's block, as printed. */
export function partyLines(p: Party): string[] {
  return [
    p.name,
    ...(p.address ? p.address.split('\n') : []),
    ...(p.country ? [countryName(p.country)] : []),
    ...(p.tax_id ? [`Tax id: ${p.tax_id}`] : []),
    // A workspace named by its owner's address would print it twice.
    ...(p.email && p.email !== p.name ? [p.email] : []),
  ];
}

/** A4 with 50-point margins; the columns of the lines table, in points from the left margin. */
const MARGIN = 50;
const COLUMNS = { description: 0, quantity: 300, unit: 350, amount: 430 } as const;
const WIDTH = 495;

export function documentPdf(d: BillingDocument): Promise<Buffer> {
  const title = `${DOCUMENT_TITLES[d.kind]} ${d.number}`;
  const pdf = new PDFDocument({ size: 'A4', margin: MARGIN, info: { Title: title, Author: d.seller.name } });
  const chunks: Buffer[] = [];
  pdf.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  pdf.font('Helvetica-Bold').fontSize(18).text(title);
  pdf
    .font('Helvetica')
    .fontSize(10)
    .text(`Issued ${d.issued_at.slice(0, 10)} (${d.issued_at.slice(11, 16)} UTC)`);
  pdf.moveDown();
  const top = pdf.y;
  pdf.font('Helvetica-Bold').text('From', MARGIN, top).font('Helvetica').text(partyLines(d.seller).join('\n'));
  const left = pdf.y;
  pdf
    .font('Helvetica-Bold')
    .text('To', MARGIN + 260, top)
    .font('Helvetica')
    .text(partyLines(d.buyer).join('\n'));
  pdf.y = Math.max(left, pdf.y);
  pdf.moveDown(2);
  const row = (cells: [string, string, string, string], bold = false) => {
    const y = pdf.y;
    pdf.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    pdf.text(cells[0], MARGIN + COLUMNS.description, y, { width: COLUMNS.quantity - 10 });
    const bottom = pdf.y;
    pdf.text(cells[1], MARGIN + COLUMNS.quantity, y, { width: 40, align: 'right' });
    pdf.text(cells[2], MARGIN + COLUMNS.unit, y, { width: 70, align: 'right' });
    pdf.text(cells[3], MARGIN + COLUMNS.amount, y, { width: WIDTH - COLUMNS.amount, align: 'right' });
    pdf.y = Math.max(bottom, pdf.y) + 4;
  };
  row(['Description', 'Qty', 'Unit', 'Amount'], true);
  for (const l of d.lines) row([l.description, String(l.quantity), formatUsd(l.unit_cents), formatUsd(l.amount_cents)]);
  pdf
    .moveTo(MARGIN, pdf.y)
    .lineTo(MARGIN + WIDTH, pdf.y)
    .stroke();
  pdf.moveDown(0.5);
  row([`Total (${d.currency.toUpperCase()})`, '', '', formatUsd(d.total_cents)], true);
  pdf.moveDown();
  pdf.font('Helvetica').fontSize(9);
  const note =
    d.kind === 'invoice'
      ? 'Overage of the month, due as the seller asks.'
      : d.kind === 'credit_note'
        ? 'Money given back to the original payment method.'
        : d.provider === 'stripe'
          ? 'Paid through Stripe.'
          : 'Paid at the service checkout.';
  pdf.text(`${note} Document ${d.id}.`, MARGIN, pdf.y);
  pdf.end();
  return done;
}
