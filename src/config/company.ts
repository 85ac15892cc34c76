// Who runs the service and how to reach them: shown on the legal and contact pages, in every footer and the
// pricing page's Enterprise link. Read from the environment with the rest of the configuration (index.ts).
import { z } from 'zod';

/** An address no mail can reach (RFC 2606): a development default that cannot be mistaken for a real one. */
const DEV_DOMAIN = 'registry-lookup.invalid';

const email = (name: string) =>
  z
    .string()
    .trim()
    .default('')
    .pipe(z.union([z.literal(''), z.email({ error: `${name} must be an email address such as help@example.com` })]));

const CompanySchema = z.object({
  COMPANY_NAME: z.string().trim().max(200).default(''),
  COMPANY_ADDRESS: z.string().trim().max(500).default(''),
  SUPPORT_EMAIL: email('SUPPORT_EMAIL'),
  SALES_EMAIL: email('SALES_EMAIL'),
  LEGAL_EMAIL: email('LEGAL_EMAIL'),
});

export interface CompanyConfig {
  /** The operator's legal name, who the terms are with. */
  readonly name: string;
  /** Its postal address (one line; `;` separates lines on the pages); null: none published. */
  readonly postalAddress: string | null;
  /** Questions about accounts, keys and billing; also where refunds are asked for. */
  readonly supportEmail: string;
  /** Enterprise plans and volume questions. */
  readonly salesEmail: string;
  /** Terms, privacy requests and data-use questions. */
  readonly legalEmail: string;
}

/**
 * The operator's identity. Outside production each unset address falls back to one under `.invalid`; in production
 * the customer-facing pages must name real people to write to, so COMPANY_NAME and SUPPORT_EMAIL are required (the
 * sales and legal addresses default to the support address).
 */
export function companyConfig(env: Record<string, string | undefined>, production: boolean): CompanyConfig {
  const parsed = CompanySchema.safeParse(env);
  if (!parsed.success)
    throw new Error(`invalid configuration: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  const e = parsed.data;
  if (production && (!e.COMPANY_NAME || !e.SUPPORT_EMAIL))
    throw new Error('invalid configuration: COMPANY_NAME and SUPPORT_EMAIL are required in production');
  const support = e.SUPPORT_EMAIL || `support@${DEV_DOMAIN}`;
  return {
    name: e.COMPANY_NAME || 'Registry Lookup (development)',
    postalAddress: e.COMPANY_ADDRESS || null,
    supportEmail: support,
    salesEmail: e.SALES_EMAIL || (e.SUPPORT_EMAIL ? support : `sales@${DEV_DOMAIN}`),
    legalEmail: e.LEGAL_EMAIL || (e.SUPPORT_EMAIL ? support : `legal@${DEV_DOMAIN}`),
  };
}
