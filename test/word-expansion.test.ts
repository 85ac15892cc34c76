// Word expansion (src/search/words/expansion.ts) finds a query word's neighbours through the
// dictionary's deletion keys (entity_word_keys and the like, registry.word_deletes). These tests hold
// the expansions against a brute-force edit distance scan, and the trigram count the ranking bounds
// similarity with (src/text/normalize.ts) against pg_trgm itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { trigramCount } from '../src/text/normalize.js';
import { editsAllowed, expandWords } from '../src/search/words/expansion.js';
import { testDatabase, type TestDatabase } from './support/database.js';

let db: TestDatabase;
before(async () => (db = await testDatabase()));
after(async () => db.close());

/** Optimal string alignment distance: Levenshtein with an adjacent transposition as one edit. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/** A small seeded generator (mulberry32): the same words every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `word` with up to `edits` random substitutions, insertions or deletions. */
function mistype(word: string, edits: number, random: () => number): string {
  const chars = word.split('');
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * chars.length);
    const letter = LETTERS[Math.floor(random() * 26)]!;
    const kind = random();
    if (kind < 0.34) chars[at] = letter;
    else if (kind < 0.67) chars.splice(at, 0, letter);
    else if (chars.length > 1) chars.splice(at, 1);
  }
  return chars.join('');
}

/** Adds words to the entity dictionary, with their deletion keys (as a daily file's new words arrive). */
async function addWords(dictionary: readonly string[]): Promise<void> {
  await db.pool.query(
    `WITH added AS (INSERT INTO registry.entity_words (word, n) SELECT w, 1 FROM unnest($1::text[]) w
                    ON CONFLICT DO NOTHING RETURNING word)
     INSERT INTO registry.entity_word_keys (key, word)
     SELECT k, word FROM added, unnest(registry.word_keys(word)) AS k`,
    [dictionary],
  );
}

/** Words of 4 to 13 letters, some with repeated letters (repeated trigrams). */
function words(count: number, random: () => number): string[] {
  return Array.from({ length: count }, () => {
    const length = 4 + Math.floor(random() * 10);
    const alphabet = random() < 0.2 ? 'ABS' : LETTERS.slice(0, 26);
    return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]!).join('');
  });
}

describe('word expansion', () => {
  it("counts a word's trigrams as pg_trgm does", async () => {
    const sample = [...words(200, rng(1)), 'AAAA', 'ABAB', 'O1O1O1', 'X'];
    const { rows } = await db.pool.query<{ w: string; n: number }>(
      'SELECT w, array_length(show_trgm(w), 1) AS n FROM unnest($1::text[]) w',
      [sample],
    );
    for (const r of rows) assert.equal(trigramCount(r.w), r.n, r.w);
  });

  it("gives a word's deletion keys as every string at most e deletions away, each at least once", async () => {
    /** Every string `w` becomes with at most `e` characters deleted, by brute force. */
    const deletions = (w: string, e: number): Set<string> => {
      let level = new Set([w]);
      const all = new Set(level);
      for (let k = 0; k < e; k++) {
        level = new Set([...level].flatMap((s) => [...s].map((_, i) => s.slice(0, i) + s.slice(i + 1))));
        for (const s of level) all.add(s);
      }
      return all;
    };
    const sample = [...words(150, rng(5)), 'AAAB', 'ABABABAB', 'AAAAAAAAA', 'X', ''];
    for (const e of [0, 1, 2, 3]) {
      const { rows } = await db.pool.query<{ w: string; keys: string[] }>(
        'SELECT w, registry.word_deletes(w, $2) AS keys FROM unnest($1::text[]) w',
        [sample, e],
      );
      for (const r of rows) assert.deepEqual(new Set(r.keys), deletions(r.w, e), `${r.w}, ${e} deletions`);
    }
  });

  it('finds neighbours at the edges of the allowed edits: words two or one letters shorter or longer', async () => {
    // Eight letters allow two edits, reaching six-letter words; four to seven allow one, reaching three.
    // Substitutions need deletions on both sides: two in an eight-letter word, one in a four-letter one.
    const dictionary = ['QWERTY', 'QWE', 'ZXCVBNMA', 'QWERTYUIO', 'POIUYTRE', 'POIUY', 'ASDF'];
    await addWords(dictionary);
    const queries = ['QWERTYUI', 'QWER', 'ZXCVBNM', 'QWERTYU', 'POIUYT', 'POXUYTRX', 'ASXF'];
    const terms = await expandWords(db.pool, 'entity_words', [...queries, 'ZZZ']);
    const near = (q: string) => terms.find((t) => t.word === q)!.expansions.filter((w) => dictionary.includes(w));
    assert.deepEqual(
      queries.map((q) => [q, near(q)]),
      [
        ['QWERTYUI', ['QWERTY', 'QWERTYUIO']],
        ['QWER', ['QWE']],
        ['ZXCVBNM', ['ZXCVBNMA']],
        ['QWERTYU', ['QWERTY']],
        ['POIUYT', ['POIUY']],
        ['POXUYTRX', ['POIUYTRE']],
        ['ASXF', ['ASDF']],
      ],
    );
  });

  it('expands to exactly the dictionary words within the allowed edits, both edit classes in one query', async () => {
    const random = rng(3);
    const base = words(400, random);
    // The dictionary: the words and a few misspellings of each, so that every query has neighbours.
    const dictionary = [
      ...new Set(base.flatMap((w) => [w, mistype(w, 1, random), mistype(w, 2, random), mistype(w, 3, random)])),
    ];
    await addWords(dictionary);
    const all = (await db.pool.query<{ word: string }>('SELECT word FROM registry.entity_words')).rows.map(
      (r) => r.word,
    );
    let compared = 0;
    for (let i = 0; i + 1 < base.length; i += 2) {
      // Two words (a short and a long one, usually: one and two edits), then a word kept from the prefix tier.
      const query = [mistype(base[i]!, 1 + Math.floor(random() * 2), random), mistype(base[i + 1]!, 1, random), 'ZZZ'];
      const terms = await expandWords(db.pool, 'entity_words', query);
      for (const term of terms.slice(0, 2)) {
        // A longer word of the query carries each of them.
        const d = editsAllowed(term.word, true);
        const within = all.filter((w) => osa(w, term.word) <= d).sort();
        assert.deepEqual(term.expansions, within, `expansions of ${term.word} (${d} edits)`);
        compared += within.length;
      }
    }
    assert.ok(compared > 300, `the queries had neighbours to find (${compared})`);
  });
});
