// Totals and facets are cached by query and dataset version: a cached answer cannot go stale before
// the next import changes the version (the keys: src/search/cache-keys.ts).
import { CACHED_TOTALS } from '../thresholds.js';

/** A small LRU keyed by dataset version and normalized query. */
export class ResultCache<T> {
  private readonly map = new Map<string, T>();
  constructor(private readonly max = CACHED_TOTALS) {}

  async get(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit;
    }
    const value = await compute();
    this.set(key, value);
    return value;
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, value: T): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}
