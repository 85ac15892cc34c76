// An entity's status: the values a search filters by and the word a hit shows. The registry stores a
// letter (A active, I inactive); the refined inactive letters come from the entity's last
// inactivating event (registry.inactivations).

/** What the status filter accepts: active/a, inactive/i, or a refined inactive letter. */
export const STATUS_VALUES = ['active', 'inactive', 'a', 'i', 'd', 'r', 'w', 'm', 'n', 'p', 'x'] as const;
export type StatusValue = (typeof STATUS_VALUES)[number];

/** The filter's values as lower-case letters (`active` is `a`, `inactive` is `i`). */
export const statusLetters = (values: readonly StatusValue[]): Set<string> =>
  new Set(values.map((v) => (v === 'active' ? 'a' : v === 'inactive' ? 'i' : v)));

/** The status a hit shows, as SQL over the registry's letter in `column`: active, inactive, else the letter. */
export const statusLabelSql = (column: string): string =>
  `CASE ${column} WHEN 'A' THEN 'active' WHEN 'I' THEN 'inactive' ELSE lower(${column}) END`;
