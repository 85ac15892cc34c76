// What a relevance-ranked query gives the ranking: its table, match predicate, tiers, similarity
// text and tiebreak, and what it knows of its matches. Entities, officers, agents and addresses are
// all ranked from one of these (docs/search.md, "Ranking").
import type { Sql } from '../sql.js';
import type { Total } from '../totals/total.js';

export interface RankedQuery {
  /** Table and alias, e.g. `registry.entities e`. */
  readonly from: string;
  /** An integer identifying a row, e.g. `e.id`. */
  readonly ref: string;
  /** The match predicate (filters included), over the alias; its placeholders are `sql`'s. */
  readonly where: string;
  /**
   * Tier conditions in order (exact forms first, then prefix); rows matching none are the last
   * tier. Each writes its own parameters into the statement being built.
   */
  readonly tiers: ReadonlyArray<(sql: Sql) => string>;
  /** How many of `tiers` are exact (names equal to the query's, off their own indexes); the rest are prefix tiers. */
  readonly exactTiers: number;
  /** The normalized text compared, and its trigram count column. */
  readonly text: string;
  readonly trgm: string;
  /** The normalized query the similarity is taken to. */
  readonly query: string;
  /** Order after tier and similarity, e.g. `e.filing_date DESC NULLS LAST, e.document_number ASC`. */
  readonly tiebreak: string;
  /**
   * Within the first tier (rows equal to the query once normalized), the order that puts first the row
   * written as the query was typed (an ORDER BY key, writing its parameters into the statement being built).
   */
  readonly asTyped?: (sql: Sql) => string;
  readonly sql: Sql;
  /**
   * When the query is exactly a slice of the ranked postings (postings.ts): the slice (its exact tiers
   * ranked before the postings' own order), whether filters narrow it,
   * whether a filter has an index of its own that finds the slice's matches among its rows ('rows':
   * a city, for a word) or exactly them ('matches': a prefix within a city), and the filters as a
   * condition on the postings' own columns (alias `p`) when those hold them all.
   */
  readonly postings?: {
    readonly slice: string;
    readonly filtered: boolean;
    readonly indexedFilter: 'rows' | 'matches' | null;
    readonly filter?: (sql: Sql) => string;
  };
  /**
   * Every match holds all of the query's trigrams (the query is one frequent word, matched as
   * itself), so its similarity is a / t and falls as t grows: with an index on (t, tiebreak), each
   * tier's rows come off it in final order.
   */
  readonly trigramOrder?: boolean;
  /**
   * The matches lie far in trigram count from most queries, so a walk would filter millions of rows that fail the
   * predicate: more matches than the rank-whole limit are ranked whole too (AGENTS, src/search/people.ts).
   */
  readonly neverWalk?: boolean;
  /**
   * The prefix tier's best rows in final order (at most `need`, none of `exclude`, the exact tiers'),
   * when an index of their own serves them (a one-word query: first-word-tier.ts), or null when it
   * cannot serve this word cheaply (the tier is then read as any other).
   */
  readonly prefixTier?: (need: number, exclude: readonly number[]) => Promise<number[] | null>;
}

/** A table's columns for the prefix tier of a one-word query, read off its first-word index. */
export interface FirstWordIndex {
  /** Table and alias, e.g. `registry.officers o`. */
  readonly from: string;
  readonly ref: string;
  /** The normalized text ranked (its first word is indexed) and its words. */
  readonly text: string;
  readonly words: string;
  readonly trgm: string;
  /** The tiebreak as the index orders it: unqualified columns, each with its direction. */
  readonly order: readonly string[];
  /** The dictionary of `words`. */
  readonly dictionary: string;
}

/** How many rows match: an upper bound known before any query (from the dictionary), and the exact total. */
export interface MatchSize {
  readonly bound: number;
  /** The bound is near the total (see matchBound). */
  readonly tight: boolean;
  /** An estimate of the total when filters keep fewer rows than the bound: the bound times their share of all rows. */
  readonly expected?: number;
  readonly total: Total;
}
