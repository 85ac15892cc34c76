// Download links of exports (docs/exports.md, "Downloading"): the file's route with an expiry and a signature over
// both, so the link works without a key (a browser, curl, a data tool) until it expires, and only for its export.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a link works: fetched again from GET /v1/exports/{id}, a new one is made each time. */
export const LINK_HOURS = 24;

export class ExportLinks {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly baseUrl: string,
  ) {
    this.key = createHmac('sha256', secret).update('export-download').digest();
  }

  private sign(id: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${id}:${expires}`).digest('base64url');
  }

  /** The link to export `id`'s file, and when it expires. */
  link(id: string, now: Date): { url: string; expires_at: string } {
    const expires = Math.floor(now.getTime() / 1000) + LINK_HOURS * 3600;
    const url = `${this.baseUrl}/v1/exports/${id}/download?expires=${expires}&signature=${this.sign(id, expires)}`;
    return { url, expires_at: new Date(expires * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  /** Whether a link's expiry and signature are the service's for export `id` and it has not expired. */
  valid(id: string, expires: number, signature: string, now: Date): boolean {
    const expected = Buffer.from(this.sign(id, expires));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 > now.getTime();
  }
}
