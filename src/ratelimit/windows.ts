// Whose window a request counts in: every surface of a workspace shares one; keyless routes count per
// client address and route. docs/contract.md, "Rate limits" and "Addresses".

/** Keyless routes allow this many requests a minute per client address. */
export const KEYLESS_PER_MINUTE = 30;
/** The public name search, the costliest keyless route, allows fewer. */
export const PUBLIC_SEARCH_PER_MINUTE = 10;

/** The window of a workspace: REST, MCP and the billing routes of all its keys count in it. */
export const workspaceWindow = (workspaceId: string): string => `ws:${workspaceId}`;

/** The window of a client address on one keyless route (or page). */
export const addressWindow = (clientIp: string, route: string): string => `ip:${clientIp}:${route}`;
