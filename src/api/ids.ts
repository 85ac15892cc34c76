import { base62 } from '../accounts/keys.js';

/** decisions.md: `req_` followed by at least 20 base-62 characters. */
export const newRequestId = (): string => `req_${base62(24)}`;
