// Every number that decides what a search matches or how it finds its answer, each with the reason for
// its value (docs/search.md, "Thresholds"). The first group shapes answers. The second only chooses
// among ways that give the same page and total (test/search-walk.test.ts holds them to each other):
// changing one of those changes the speed, never an answer. Times are at 12.6 million entities.

// What a query matches and what an answer holds.

/** A name of at most this many characters matches the start of names: too short for a word of its own. */
export const PREFIX_QUERY_MAX_LENGTH = 2;
/** Words of at most this many characters allow no typo alone (one edit turns most into another word), one when a
 * longer query word carries them. */
export const NO_TYPO_MAX_LENGTH = 3;
/** A query of this many words carries its short words even without a longer one (344 AOK AVE: OAK). */
export const CARRYING_WORDS = 3;
/** Words of at most this many characters (initials) allow no typo, carried or not: one edit makes any other
 * initial. They must match like any word: left optional, O&Z REALTY matched every REALTY (125,000 names, 2.5 to
 * 7 s to rank at 12.6M) where its initials keep 37 (6 ms); a mistyped one is the relaxed match's. Not in addresses,
 * where one is a directional or a street type's remnant (2060 CREEK N for LN: expansion.ts, requiredWords). */
export const INITIAL_MAX_LENGTH = 1;
/** Words of at most this many characters allow one typo; longer ones two. */
export const ONE_TYPO_MAX_LENGTH = 7;
/** The last query word also matches the words it begins once it has this many characters. */
export const PREFIX_EXPANSION_MIN_LENGTH = 3;
/** At most this many (the most frequent) words a last word's prefix expands to. */
export const PREFIX_EXPANSION_MAX_WORDS = 500;
/** At most this many query words take part: longer queries are rare and their extra words add little. */
export const MAX_QUERY_WORDS = 8;
/** A query of this many words or more that no row holds all of is matched by all its words but one; fewer words
 * left would match too broadly (a two-word name by either word). */
export const RELAXED_MIN_WORDS = 3;
/** Filings an entity's detail lists, newest first (the get_entity description promises them). */
export const RECENT_FILINGS = 50;
/** Values a facet lists, by count (the entity search's facets parameter promises them). */
export const FACET_VALUES = 20;

// How an answer is found (speed only).

/** Relevance pages of fewer matches are ranked whole: the break-even, near sqrt(2 × 25 rows asked × 12.6 M rows). */
export const RANK_WHOLE_BELOW = 25_000;
/** RANK_WHOLE_BELOW is for pages of up to this many rows; it grows with the rows a deeper page asks for. */
export const RANK_WHOLE_PAGE_ROWS = 500;
/** Sorted listings of fewer matches are sorted whole: past it a walk of the sort's index reads fewer rows. */
export const SORT_ALL_BELOW = 50_000;
/** In a city, sort whole below SORT_ALL_BELOW / this (2,000): a rare type in a big city reads much of it first. */
export const CITY_SORT_ALL_DIVISOR = 25;
/** A one-type listing by name walks its type-and-name index up to this many rows (FORLP since 2022: 259 ms → 36). */
export const TYPE_NAME_WALK_ROWS_MAX = 2_000;

/** A word alone reads its first-word tiers first from RANK_WHOLE_BELOW / this (5,000); below, 35 ms whole at most. */
export const FIRST_WORD_TIERS_FROM_DIVISOR = 5;
/** Longer first words are merged into a first-word tier up to this many rows (SMITH among officers: 8,223). */
export const LONGER_FIRST_WORDS_MAX = 10_000;
/** Rank and count the first RANK_WHOLE_BELOW + 1 matches at once up to a bound this many times it: past it, a
 * planner expecting that many matches may read the table in order to stop early. */
export const CAPPED_RANK_BOUND_MULTIPLE = 20;
/** Up to this many times RANK_WHOLE_BELOW, a page the exact tiers leave short is ranked whole (BRE walked: 2.5 s). */
export const RANK_WHOLE_AFTER_EXACT_MULTIPLE = 4;
/** A posting slice's matches found by a city's index are ranked whole up to RANK_WHOLE_BELOW / this (1,000). */
export const INDEXED_ROWS_HANDFUL_DIVISOR = 25;
/** ... or up to RANK_WHOLE_BELOW / this (5,000) when the index finds exactly them (M in SAINT AUGUSTINE: 17 ms). */
export const INDEXED_MATCHES_HANDFUL_DIVISOR = 5;
/** Postings checked one entity row each read at most RANK_WHOLE_BELOW / this (5,000): TR of type DOMNP 1.1 s → 0.7. */
export const CHECKED_POSTINGS_MAX_DIVISOR = 5;

/** A trigram walk's first step reads at least this many rows each way. */
export const WALK_FIRST_STEP_MIN = 64;
/** ... and at least this many times the rows still needed. */
export const WALK_FIRST_STEP_PER_ROW = 2;
/** Each later step of a walk (trigram counts or postings) reads this many times more: filters may reject many. */
export const STEP_GROWTH = 4;
/** A trigram walk reading this many rows one way ranks its tier whole instead: its bound did not stop it. */
export const WALK_ROWS_MAX = 400_000;
/** A filtered posting slice's first step reads this many postings. */
export const POSTINGS_FIRST_STEP = 64;

/** A term of up to this many words is counted by its pairs (HAND, 14 words: 17 ms against 359; LARA, 59: too large). */
export const PAIRWISE_WORDS_MAX = 40;
/** A term's total is added up while its uncounted words hold at most this many rows (CAKE: 2.5 s → 336 ms). */
export const UNCOUNTED_ROWS_MAX = 5_000;

/** Totals kept per process, least recently used out: an entry is a key of some 100 bytes and a number. */
export const CACHED_TOTALS = 20_000;
/** Facet answers kept per process: each holds up to six facets of FACET_VALUES values. */
export const CACHED_FACETS = 2_000;
