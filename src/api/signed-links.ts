// Download links (docs/exports.md, "Downloading"; docs/contract.md, "Bulk snapshots"): a file's route with an expiry
// and a signature over both, so the link works without a key (a browser, curl, a data tool) until it expires, and
// only for its file. Each kind of link signs under a key of its own, derived from the server secret.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** How long a link works: asked for again (GET /v1/exports/{id}, GET /v1/snapshots/{id}), a new one is made. */
export const LINK_HOURS = 24;

/** A link's own query parameters, as every file route reads them beside the file's. */
export const LINK_PARAMS = {
  expires: z.coerce.number({ error: 'must be a number' }).int({ error: 'must be an integer' }),
  signature: z.string().max(100, { error: 'must be at most 100 characters' }),
};

/** The 403 of a link expired, forged or for another file; `again` is the route that gives a new one. */
export const invalidLink = (again: string): string =>
  `This download link has expired or is not one the service made: GET ${again} gives a new one.`;

export class SignedLinks {
  private readonly key: Buffer;

  /** `purpose` names the kind of link; `route` is the file's URL for a subject (an export's id). */
  constructor(
    secret: string,
    purpose: string,
    private readonly route: (subject: string) => string,
  ) {
    this.key = createHmac('sha256', secret).update(purpose).digest();
  }

  private sign(subject: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${subject}:${expires}`).digest('base64url');
  }

  /** The link to `subject`'s file, and when it expires. */
  link(subject: string, now: Date): { url: string; expires_at: string } {
    const expires = Math.floor(now.getTime() / 1000) + LINK_HOURS * 3600;
    const url = `${this.route(subject)}?expires=${expires}&signature=${this.sign(subject, expires)}`;
    return { url, expires_at: new Date(expires * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  /** Whether a link's expiry and signature are the service's for `subject` and it has not expired. */
  valid(subject: string, expires: number, signature: string, now: Date): boolean {
    const expected = Buffer.from(this.sign(subject, expires));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 > now.getTime();
  }
}
