// The service manifest (Reconciliation Service API v0.2, "Service Manifest"): what OpenRefine reads when the service
// is added, naming every other endpoint. Those endpoints carry the credential in their path like the service URL
// itself, since OpenRefine sends no header (docs/reconciliation.md, "The credential").
import { TYPES } from './vocabulary.js';

/** The most queries one batch may hold; OpenRefine sends 10 at a time by default, and splits by `batchSize`. */
export const MAX_QUERIES_PER_BATCH = 50;

/** The preview card's frame in OpenRefine, in pixels: room for the card's five lines, no scrolling. */
const PREVIEW_WIDTH = 400;
const PREVIEW_HEIGHT = 190;

/** The service URL of a credential: what is added in OpenRefine. `base`: where clients reach it (PUBLIC_BASE_URL). */
export const serviceUrl = (base: string, token: string): string => `${base}/v1/reconcile/${encodeURIComponent(token)}`;

/** `base`: where clients reach the service (PUBLIC_BASE_URL); `service`: the service URL with its credential. */
export function manifest(base: string, service: string): Record<string, unknown> {
  return {
    versions: ['0.2'],
    name: 'Registry Lookup: Florida corporate registry',
    identifierSpace: `${base}/v1/entities/`,
    schemaSpace: 'https://schema.org/Organization',
    documentation: `${base}/docs`,
    defaultTypes: TYPES.map(({ id, name }) => ({ id, name })),
    // No public page shows an entity: its API address (which asks for an API key) names it.
    view: { url: `${base}/v1/entities/{{id}}` },
    preview: { url: `${service}/preview?id={{id}}`, width: PREVIEW_WIDTH, height: PREVIEW_HEIGHT },
    suggest: {
      entity: { service_url: service, service_path: '/suggest/entity' },
      property: { service_url: service, service_path: '/suggest/property' },
      type: { service_url: service, service_path: '/suggest/type' },
    },
    extend: { propose_properties: { service_url: service, service_path: '/properties' } },
    batchSize: MAX_QUERIES_PER_BATCH,
  };
}
