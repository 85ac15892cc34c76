// Reads a freshly built dataset's most-read relations into the server's cache before it goes live.
// A full load writes far more than memory holds (some 44 GB at 12.6 million entities), so what the
// searches read first was on disk when the new dataset was swapped in, and the first hours after a
// quarterly load ran on random reads. pg_prewarm reads each relation whole, sequentially.
import type pg from 'pg';

/**
 * Relations in the order they are worth memory: the word dictionaries every name query expands
 * through, the entity name indexes and counts, the entity rows (read for every page's hits, and for
 * every match a filter is checked on), the ranked postings, then officers, agents and addresses.
 * Missing names are skipped (a unit loads only its own tables).
 */
const HOT_RELATIONS = [
  'entity_words',
  'entity_words_pkey',
  'entity_word_keys_idx',
  'entity_counts',
  'entity_counts_pkey',
  'entities_name_words_idx',
  'entities_name_norm_idx',
  'entities_name_core_idx',
  'entities_first_word_order_idx',
  'entities_name_trgm_idx',
  'entities_id_idx',
  'entities',
  'entity_postings_rank_idx',
  'officer_words',
  'officer_words_pkey',
  'officer_word_keys_idx',
  'officers_name_words_idx',
  'officers_name_norm_cover_idx',
  'officers_first_word_order_idx',
  'officers_trgm_order_idx',
  'officers_ref_idx',
  'agent_words',
  'agent_words_pkey',
  'agent_word_keys_idx',
  'agents',
  'agents_pkey',
  'agents_name_words_idx',
  'agents_id_idx',
  'address_words',
  'address_words_pkey',
  'address_word_keys_idx',
  'entities_address_words_idx',
  'entities_zip5_idx',
] as const;

/** The share of the server's declared cache (effective_cache_size) a prewarm may fill. */
const CACHE_SHARE = 0.75;

export interface PrewarmResult {
  readonly relations: number;
  readonly bytes: number;
  /** Relations left cold because the budget was spent (in priority order). */
  readonly skipped: string[];
}

/**
 * Reads `relations` of `schema` (in order, each whole) while they fit in `budget` bytes (by default
 * three quarters of the server's effective_cache_size); later ones that do not fit are skipped. Null
 * when the server has no pg_prewarm (src/db/migrations/003_imports.sql installs it where it can).
 */
export async function prewarm(
  pool: pg.Pool,
  schema: string,
  relations: readonly string[],
  budget?: number,
): Promise<PrewarmResult | null> {
  const { rows: installed } = await pool.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'`);
  if (installed.length === 0) return null;
  // int8 arrives as a number (src/db/pool.ts).
  const { rows: sized } = await pool.query<{ relname: string; oid: number; bytes: number }>(
    `SELECT relname, oid, pg_relation_size(oid) AS bytes FROM pg_class
     WHERE relnamespace = $1::regnamespace AND relname = ANY($2::text[])`,
    [schema, relations],
  );
  const byName = new Map(sized.map((r) => [r.relname, r]));
  const cache = async (): Promise<number> =>
    (
      await pool.query<{ n: number }>(
        `SELECT setting::bigint * 8192 AS n FROM pg_settings WHERE name = 'effective_cache_size'`,
      )
    ).rows[0]!.n;
  const limit = budget ?? (await cache()) * CACHE_SHARE;
  let bytes = 0;
  const chosen: number[] = [];
  const skipped: string[] = [];
  for (const name of relations) {
    const rel = byName.get(name);
    if (!rel) continue;
    if (bytes + rel.bytes > limit) {
      skipped.push(name);
      continue;
    }
    chosen.push(rel.oid);
    bytes += rel.bytes;
  }
  // 'read' fills the operating system's cache and leaves shared buffers to the live dataset. Twice:
  // Linux keeps a page read once on its inactive list, the first it lets go; the second read moves
  // it to the active list, ahead of pages an import read once (the second pass runs at memory speed).
  for (let pass = 0; pass < 2; pass++) {
    for (const oid of chosen) await pool.query(`SELECT pg_prewarm($1::oid::regclass, 'read')`, [oid]);
  }
  return { relations: chosen.length, bytes, skipped };
}

/** Prewarms the live dataset's HOT_RELATIONS and logs what was read and what was left cold. */
export async function prewarmDataset(pool: pg.Pool, log: (line: string) => void): Promise<PrewarmResult | null> {
  const started = Date.now();
  const r = await prewarm(pool, 'registry', HOT_RELATIONS);
  if (!r) {
    log('dataset: not prewarmed (the server has no pg_prewarm)');
    return null;
  }
  const cold = r.skipped.length ? `; left cold, over the cache budget: ${r.skipped.join(', ')}` : '';
  const size = `${(r.bytes / 2 ** 30).toFixed(1)} GiB`;
  log(
    `dataset: prewarmed ${r.relations} relations (${size}) in ${((Date.now() - started) / 1000).toFixed(1)} s${cold}`,
  );
  return r;
}
