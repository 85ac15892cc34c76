// The shape every list query returns: the page's rows and the exact number of matches.
export interface Page<T> {
  hits: T[];
  total: number;
}

export interface PageRequest {
  limit: number;
  offset: number;
}

/**
 * Wraps a match query (`matches`: a SELECT over the matching rows with the columns `order` and
 * `hit` need) so one statement returns the exact total and the ordered page as JSON; `extra`
 * selects more from the matches `m` (facets).
 */
export function pageQuery(
  matches: string,
  order: string,
  hit: string,
  limitParam: string,
  offsetParam: string,
  extra = '',
): string {
  return `
    WITH m AS MATERIALIZED (${matches}),
    page AS (SELECT *, row_number() OVER (ORDER BY ${order}) AS pos FROM m
             ORDER BY pos LIMIT ${limitParam} OFFSET ${offsetParam})
    SELECT (SELECT count(*) FROM m) AS total,
           coalesce((SELECT json_agg(h ORDER BY h.pos) FROM (SELECT page.pos, ${hit} FROM page) h), '[]') AS hits
           ${extra ? `, ${extra}` : ''}`;
}

export function toPage<T>(row: { total: number; hits: Array<T & { pos?: number }> }): Page<T> {
  return { total: row.total, hits: row.hits.map(({ pos: _pos, ...hit }) => hit as T) };
}
