// Seeded randomness: one small PRNG per (seed, stream, index), so any record can be re-derived on its own.
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** Independent random streams; a record's stream and index name it for good. */
export const STREAM = {
  snapshot: 1,
  formation: 2,
  change: 3,
  day: 4,
  otherEvent: 5,
  dayOrder: 6,
  matchRow: 7,
} as const;

/** murmur3's 32-bit finalizer: spreads every input bit over the output. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

const GOLDEN = 0x9e3779b9 | 0;

export class Rng {
  private readonly g: RandomGenerator;

  constructor(seed: number, stream: number, index: number) {
    // Seeds and indices may exceed 32 bits: fold the high part in separately.
    const seedHi = Math.floor(seed / 4294967296) | 0;
    const indexHi = Math.floor(index / 4294967296) | 0;
    const a = mix32((seed | 0) ^ mix32(stream + GOLDEN));
    const b = mix32(a ^ (index | 0));
    const c = mix32((b + GOLDEN) ^ seedHi);
    const d = mix32((c + GOLDEN) ^ indexHi);
    const e = mix32(d + GOLDEN);
    // xoroshiro's state must not be all zero.
    this.g = xoroshiro128plusFromState([b, c, d, e | 1]);
  }

  /** Uniform in [0, 1). */
  float(): number {
    return (this.g.next() >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A string of n decimal digits. */
  digits(n: number): string {
    let s = '';
    for (let k = 0; k < n; k++) s += String.fromCharCode(48 + this.int(10));
    return s;
  }
}

const GUIDE_SIZE = 1024;

/**
 * A fixed discrete distribution. A guide table gives, for each of GUIDE_SIZE equal slices of [0, 1), the first
 * value whose cumulative weight reaches the slice, so a draw scans at most a step or two: exact and O(1).
 */
export class Weighted<T> {
  private readonly values: T[];
  private readonly cumulative: Float64Array;
  private readonly guide = new Uint32Array(GUIDE_SIZE);

  constructor(entries: readonly (readonly [T, number])[]) {
    this.values = entries.map(([v]) => v);
    this.cumulative = new Float64Array(entries.length);
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let sum = 0;
    entries.forEach(([, w], k) => {
      sum += w;
      this.cumulative[k] = sum / total;
    });
    this.cumulative[entries.length - 1] = 1;
    for (let g = 0, k = 0; g < GUIDE_SIZE; g++) {
      while (this.cumulative[k]! <= g / GUIDE_SIZE) k++;
      this.guide[g] = k;
    }
  }

  pick(rng: Rng): T {
    const x = rng.float();
    let k = this.guide[(x * GUIDE_SIZE) | 0]!;
    while (this.cumulative[k]! <= x) k++;
    return this.values[k]!;
  }
}

/**
 * Zipf-Mandelbrot ranks: P(k) proportional to 1 / (k + q) for k in [0, n). A larger q flattens the head.
 * Sampled by inverting the continuous distribution: one exp per draw.
 */
export class Zipf {
  private readonly logRatio: number;

  constructor(
    readonly n: number,
    private readonly q: number,
  ) {
    this.logRatio = Math.log((n + q) / q);
  }

  rank(rng: Rng): number {
    const k = Math.floor(this.q * Math.exp(rng.float() * this.logRatio) - this.q);
    return k < this.n ? k : this.n - 1;
  }
}

/** A deterministic shuffle (independent of the dataset seed), to break a word list's alphabetical order. */
export function shuffled<T>(items: readonly T[], salt: number): T[] {
  const out = items.slice();
  for (let k = out.length - 1; k > 0; k--) {
    const j = (mix32(k * GOLDEN + salt) >>> 0) % (k + 1);
    [out[k], out[j]] = [out[j]!, out[k]!];
  }
  return out;
}
