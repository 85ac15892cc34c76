// The word dictionaries the importer builds and the search expands query words against: one per kind
// of name, each with its table of deletion keys (a word's forms with letters deleted, for typo lookups).
export type Dictionary = 'entity_words' | 'officer_words' | 'agent_words' | 'address_words';

/** A dictionary's table of deletion keys: entity_words' is entity_word_keys. */
export const keysTable = (dictionary: Dictionary): string => `${dictionary.slice(0, -1)}_keys`;
