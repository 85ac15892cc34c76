// The provider the configuration chooses (config.billing.provider).
import type Stripe from 'stripe';
import type { Config } from '../config/index.js';
import { LocalPayments, type PaymentProvider } from './provider.js';
import { StripePayments } from './stripe.js';

export function paymentProvider(config: Config, stripeHttpClient?: Stripe.HttpClient): PaymentProvider {
  const b = config.billing;
  if (b.provider === 'local') return new LocalPayments(b.publicBaseUrl);
  return new StripePayments({
    secretKey: b.stripeSecretKey,
    webhookSecret: b.stripeWebhookSecret,
    publicBaseUrl: b.publicBaseUrl,
    ...(stripeHttpClient ? { httpClient: stripeHttpClient } : {}),
  });
}
