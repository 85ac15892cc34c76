// A billing request that cannot be done as asked (no such workspace or checkout, a refund not allowed, a
// plan not sold here): its message says why, for the operator's command line and the account pages.
export class BillingError extends Error {}
