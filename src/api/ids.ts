import { base62 } from '../accounts/keys.js';

/** docs/contract.md, "Responses": `req_` followed by at least 20 base-62 characters. */
export const newRequestId = (): string => `req_${base62(24)}`;
