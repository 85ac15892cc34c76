// Every setting of the service, read from the environment once, validated, and passed down from here.
import path from 'node:path';
import { z } from 'zod';
import { companyConfig, type CompanyConfig } from './company.js';
import { projectRoot } from './paths.js';
import { parseRegistrySource, type RegistrySourceConfig } from './registry-source.js';

const optionalUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(z.string().url().optional());

const flag = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default(''),
  DATABASE_URL: optionalUrl,
  READ_DATABASE_URL: optionalUrl,
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  REDIS_URL: optionalUrl,
  RATE_LIMIT_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  RATE_LIMIT_PREFIX: z.string().default('registry-lookup:ratelimit:'),
  API_KEY_PEPPER: z.string().default(''),
  TRUST_PROXY: z.string().default(''),
  SAMPLE_ENTITIES: z.coerce.number().int().min(100).default(25_000),
  SAMPLE_SEED: z.coerce.number().int().default(1),
  SAMPLE_DAYS: z.coerce.number().int().min(1).max(90).default(15),
  SEED_SAMPLE: flag.default(true),
  SCHEDULER: flag.default(true),
  STRIPE_SECRET_KEY: z.string().trim().default(''),
  STRIPE_WEBHOOK_SECRET: z.string().trim().default(''),
  CHECKOUT_PROVIDER: z.enum(['local', 'stripe', '']).default(''),
  PUBLIC_BASE_URL: optionalUrl,
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().trim().default('Registry Lookup <no-reply@registry-lookup.invalid>'),
  SELLER_NAME: z.string().trim().min(1).default('Registry Lookup'),
  SELLER_ADDRESS: z.string().trim().optional(),
  SELLER_TAX_ID: z.string().trim().optional(),
  SELLER_EMAIL: z.string().trim().optional(),
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  REGISTRY_SOURCE: z.string().default(''),
  REGISTRY_SFTP_KEY_FILE: z.string().trim().default(''),
  REGISTRY_SFTP_HOST_KEY: z.string().trim().default(''),
  REFRESH_RETRY_SECONDS: z.coerce.number().min(0).max(3600).default(30),
  WEBHOOKS_ALLOW_PRIVATE: flag.default(false),
  WEBHOOKS_RETRY_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
  WEBHOOKS_DELIVERY: flag.default(true),
  MATCH_JOB_SLOTS: z.coerce.number().int().min(0).max(16).default(1),
  SNAPSHOTS: flag.default(true),
});

export interface Config {
  readonly env: string;
  readonly production: boolean;
  readonly host: string;
  readonly port: number;
  readonly logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  /** Where the embedded PostgreSQL, generated sample files and local secrets live. */
  readonly dataDir: string;
  /** Absent: the service runs its own embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly readDatabaseUrl: string | undefined;
  readonly dbPoolSize: number;
  /** Longest a read query of a request may run before PostgreSQL stops it (the client may be gone). */
  readonly queryTimeoutMs: number;
  /** 0 picks a free port. */
  readonly embeddedPgPort: number;
  /** Rate-limit counters shared by every instance; absent: kept in process (one server). */
  readonly redisUrl: string | undefined;
  /** A counter store slower than this lets the request through (fail open). */
  readonly rateLimitTimeoutMs: number;
  /** Prefix of the rate-limit keys in Redis, so that deployments sharing one Redis stay apart. */
  readonly rateLimitPrefix: string;
  /** Empty: generated and kept under `dataDir` (embedded mode only; production requires it). */
  readonly apiKeyPepper: string;
  /** Fastify's `trustProxy`: false for none, true for any, a hop count as a function, or addresses/CIDRs. */
  readonly trustProxy: boolean | string | ((address: string, hop: number) => boolean);
  readonly sample: {
    readonly entities: number;
    readonly seed: number;
    readonly days: number;
    readonly enabled: boolean;
  };
  readonly schedulerEnabled: boolean;
  /**
   * Browser origins allowed to call /mcp (`*`: any). A request without `Origin` (every non-browser
   * client) is always allowed; one with an `Origin` not listed is refused, against DNS rebinding.
   */
  readonly mcpAllowedOrigins: readonly string[];
  readonly billing: BillingConfig;
  readonly web: WebConfig;
  /** Who runs the service and its contact addresses (company.ts). */
  readonly company: CompanyConfig;
  /** Where the daily refresh fetches the registry's files from; null: no refresh (sample or hand imports only). */
  readonly registrySource: RegistrySourceConfig | null;
  /** The refresh's first wait before retrying a failed listing or download within a run (doubles each time). */
  readonly refreshRetrySeconds: number;
  /**
   * Webhook deliveries (docs/webhooks.md): private targets and plain http allowed, the first retry's wait, and
   * whether `registry serve` runs the delivery loop (whatever SCHEDULER says; `registry worker` always does).
   */
  readonly webhooks: { readonly allowPrivate: boolean; readonly retrySeconds: number; readonly deliver: boolean };
  /** Match jobs a process runs at once, `registry serve` and `registry worker` alike (0: none here). */
  readonly matchJobSlots: number;
  /** Whether this process writes the bulk snapshots (docs/operations.md, "Bulk snapshots"; with a background slot). */
  readonly snapshots: boolean;
}

interface BillingConfig {
  /** Who takes the money for credit packs: the service's own checkout page, or Stripe. */
  readonly provider: 'local' | 'stripe';
  readonly stripeSecretKey: string;
  /** Verifies the Stripe-Signature of webhook events. */
  readonly stripeWebhookSecret: string;
  /** Where buyers' browsers reach this service (checkout links, Stripe's return URLs); no trailing slash. */
  readonly publicBaseUrl: string;
  /** Who sells, as printed on receipts, invoices and credit notes (SELLER_*; the address's `|` ends a line). */
  readonly seller: Seller;
}

export interface Seller {
  readonly name: string;
  readonly address: string | null;
  readonly taxId: string | null;
  readonly email: string | null;
}

interface WebConfig {
  /** SMTP server of the mails to users (`smtp://user:pass@host:587`, `smtps://...`); null: written under DATA_DIR/mail. */
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** Cookies marked Secure (and `__Host-` named): in production, or when browsers reach the service over TLS. */
  readonly secureCookies: boolean;
}

/** Mail and cookies of the web app. Production must send real mail: a sign-up link in a log file reaches no one. */
function webConfig(e: z.infer<typeof EnvSchema>, production: boolean, publicBaseUrl: string): WebConfig {
  if (e.SMTP_URL && !/^smtps?:\/\//.test(e.SMTP_URL))
    throw new Error('invalid configuration: SMTP_URL must start with smtp:// or smtps://');
  if (production && !e.SMTP_URL) throw new Error('invalid configuration: SMTP_URL is required in production');
  return {
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM,
    secureCookies: production || publicBaseUrl.startsWith('https:'),
  };
}

/**
 * The checkout provider: stripe when a secret key is set, else the local checkout page. In
 * production the local page (which grants credits without taking money) must be chosen explicitly.
 */
function billingConfig(e: z.infer<typeof EnvSchema>, production: boolean): BillingConfig {
  const provider = e.CHECKOUT_PROVIDER || (e.STRIPE_SECRET_KEY ? 'stripe' : 'local');
  if (provider === 'stripe' && !e.STRIPE_SECRET_KEY)
    throw new Error('invalid configuration: CHECKOUT_PROVIDER=stripe needs STRIPE_SECRET_KEY');
  if (provider === 'stripe' && !e.STRIPE_WEBHOOK_SECRET)
    throw new Error('invalid configuration: STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY');
  if (production && !e.CHECKOUT_PROVIDER && provider === 'local') {
    throw new Error(
      'invalid configuration: in production set STRIPE_SECRET_KEY, ' +
        'or CHECKOUT_PROVIDER=local to sell packs without taking payment',
    );
  }
  // An address to listen on everywhere is not one a browser can open.
  const host = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://${host}:${e.PORT}`).replace(/\/+$/, '');
  return {
    provider,
    stripeSecretKey: e.STRIPE_SECRET_KEY,
    stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET,
    publicBaseUrl,
    seller: {
      name: e.SELLER_NAME,
      address: e.SELLER_ADDRESS
        ? e.SELLER_ADDRESS.split('|')
            .map((l) => l.trim())
            .join('\n')
        : null,
      taxId: e.SELLER_TAX_ID || null,
      email: e.SELLER_EMAIL || null,
    },
  };
}

function parseTrustProxy(raw: string): Config['trustProxy'] {
  const v = raw.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_address, hop) => hop < hops;
  }
  return v;
}

/** A comma-separated list of origins (`https://app.example.com`), each normalized; `*` stands alone. */
function parseOrigins(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  return entries.map((v) => {
    if (v === '*') return v;
    const url = URL.canParse(v) ? new URL(v) : null;
    if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
      throw new Error(
        `invalid configuration: MCP_ALLOWED_ORIGINS: ${JSON.stringify(v)} is not an origin such as https://app.example.com`,
      );
    }
    return url.origin;
  });
}

function registrySource(e: z.infer<typeof EnvSchema>): RegistrySourceConfig | null {
  try {
    return parseRegistrySource(
      e.REGISTRY_SOURCE,
      e.REGISTRY_SFTP_KEY_FILE ? path.resolve(e.REGISTRY_SFTP_KEY_FILE) : '',
      e.REGISTRY_SFTP_HOST_KEY,
    );
  } catch (err) {
    throw new Error(`invalid configuration: ${(err as Error).message}`, { cause: err });
  }
}

/** Builds the configuration from an environment (process.env by default). Throws on invalid values. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  const billing = billingConfig(e, production);
  const config: Config = {
    env: e.NODE_ENV,
    production,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    dataDir: path.resolve(e.DATA_DIR || path.join(projectRoot, '.data')),
    databaseUrl: e.DATABASE_URL,
    readDatabaseUrl: e.READ_DATABASE_URL,
    dbPoolSize: e.DB_POOL_SIZE,
    queryTimeoutMs: e.QUERY_TIMEOUT_MS,
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    redisUrl: e.REDIS_URL,
    rateLimitTimeoutMs: e.RATE_LIMIT_TIMEOUT_MS,
    rateLimitPrefix: e.RATE_LIMIT_PREFIX,
    apiKeyPepper: e.API_KEY_PEPPER,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    sample: { entities: e.SAMPLE_ENTITIES, seed: e.SAMPLE_SEED, days: e.SAMPLE_DAYS, enabled: e.SEED_SAMPLE },
    schedulerEnabled: e.SCHEDULER,
    billing,
    web: webConfig(e, production, billing.publicBaseUrl),
    company: companyConfig(env, production),
    mcpAllowedOrigins: parseOrigins(e.MCP_ALLOWED_ORIGINS),
    registrySource: registrySource(e),
    refreshRetrySeconds: e.REFRESH_RETRY_SECONDS,
    webhooks: {
      allowPrivate: e.WEBHOOKS_ALLOW_PRIVATE,
      retrySeconds: e.WEBHOOKS_RETRY_SECONDS,
      deliver: e.WEBHOOKS_DELIVERY,
    },
    matchJobSlots: e.MATCH_JOB_SLOTS,
    snapshots: e.SNAPSHOTS,
  };
  if (production && !config.databaseUrl)
    throw new Error('invalid configuration: DATABASE_URL is required in production');
  if (production && !config.apiKeyPepper)
    throw new Error('invalid configuration: API_KEY_PEPPER is required in production');
  // Plain http:// and private receivers are for tests and development: never a production service's.
  if (production && config.webhooks.allowPrivate)
    throw new Error('invalid configuration: WEBHOOKS_ALLOW_PRIVATE is a development setting, refused in production');
  return Object.freeze(config);
}
