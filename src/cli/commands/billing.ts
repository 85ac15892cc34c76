// Operator commands for billing: checkouts, invoices, and the customer at the card processor.
import type { Command } from 'commander';
import { formatUsd } from '../../accounts/catalog.js';
import { listCheckouts } from '../../billing/checkouts.js';
import { listInvoices, markInvoicePaid } from '../../billing/invoices.js';
import { setProcessorCustomer } from '../../billing/subscription.js';
import { systemClock } from '../../clock.js';
import { withDatabase } from '../context.js';
import { keyValueLines, printResult, type OutputOptions } from '../output.js';

export function registerBilling(program: Command): void {
  const billing = program.command('billing').description('credit pack checkouts and overage invoices');
  billing
    .command('checkouts')
    .argument('<workspace>')
    .description("the workspace's checkouts (their ids are what `registry credits refund` takes)")
    .option('--json', 'print as JSON')
    .action(async (workspace: string, opts: OutputOptions) => {
      const list = await withDatabase((db) => listCheckouts(db.pool, workspace));
      printResult(
        list,
        opts,
        (l) =>
          l
            .map(
              (c) =>
                `${c.id}  ${c.slug.padEnd(12)} ${formatUsd(c.amount_cents).padStart(8)}  ` +
                `${c.provider.padEnd(6)} ${c.status.padEnd(8)} created ${c.created_at}` +
                `${c.paid_at ? `  paid ${c.paid_at}` : ''}`,
            )
            .join('\n') || 'no checkouts',
      );
    });
  billing
    .command('invoices')
    .argument('<workspace>')
    .description("the workspace's invoices and their daily overage items")
    .option('--json', 'print as JSON')
    .action(async (workspace: string, opts: OutputOptions) => {
      const list = await withDatabase((db) => listInvoices(db.pool, workspace));
      printResult(
        list,
        opts,
        (l) =>
          l
            .map((v) =>
              [
                `${v.id}  ${v.period_start}  ${v.status}${v.final ? ' (final)' : ''}  ` +
                  `${v.credits} credits  ${formatUsd(v.amount_cents)}`,
              ]
                .concat(
                  v.items.map(
                    (i) =>
                      `  ${i.day}  ${String(i.credits).padStart(9)} credits  ` +
                      `${formatUsd(i.amount_cents).padStart(10)}${i.paid_at ? '  paid' : ''}`,
                  ),
                )
                .join('\n'),
            )
            .join('\n') || 'no invoices',
      );
    });
  billing
    .command('invoice-paid')
    .argument('<invoice>')
    .description('record an issued invoice as paid: its overage leaves the balance')
    .option('--note <note>', 'how it was paid, for the ledger', 'recorded by the operator')
    .option('--json', 'print as JSON')
    .action(async (invoice: string, opts: OutputOptions & { note: string }) => {
      const result = await withDatabase((db) => markInvoicePaid(db.pool, invoice, systemClock.now(), opts.note));
      printResult(result, opts, (r) => keyValueLines(r as unknown as Record<string, unknown>));
    });
  billing
    .command('set-customer')
    .argument('<workspace>')
    .argument('<customer>', 'the Stripe customer id (cus_...), or "none"')
    .description(
      "the workspace's customer at Stripe, where its overage is invoiced (also learnt from its first paid checkout)",
    )
    .option('--json', 'print as JSON')
    .action(async (workspace: string, customer: string, opts: OutputOptions) => {
      const result = await withDatabase((db) =>
        setProcessorCustomer(db.pool, workspace, customer === 'none' ? null : customer),
      );
      printResult(result, opts, (r) => keyValueLines(r as unknown as Record<string, unknown>));
    });
}
