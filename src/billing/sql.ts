// Small SQL helpers shared by the billing queries.

/** A timestamptz column as an ISO 8601 UTC string (seconds), the form every answer shows. */
export const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
