import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { createPool } from '../src/db/pool.js';
import { createSearch } from '../src/search/index.js';
import { database } from './setup.js';

const kinds = process.argv.slice(2);
const { url, stop } = await database('bench_100000');
const pool = createPool(url, 4);
const search = createSearch(pool, async () => 1);
const rows = parse(readFileSync('bench/work/data-100000/match-rows.csv'), { columns: true }) as Record<string, string>[];
const pick = rows.slice(0, 2000).filter((r) => kinds.includes(r.kind!));
const t0 = Date.now();
let n = 0;
for (let i = 0; i < pick.length; i += 100) {
  const batch = pick.slice(i, i + 100);
  const queries = batch.map((r) => Object.fromEntries(Object.entries({ name: r.name, city: r.city, zip: r.zip, address: r.address, officer: r.officer, reference: r.reference }).filter(([, v]) => v)) as any);
  const ans = await search.match(queries, { limit: 3, algorithm: 'match-v1' });
  ans.results.forEach((res, j) => {
    const r = batch[j]!;
    if (res.match?.document_number === r.truth) return;
    if (n++ > 25) return;
    console.log(r.kind, JSON.stringify(queries[j]), 'truth', r.truth);
    for (const c of res.candidates) console.log('   ', c.document_number, c.entity_name, c.score, Object.entries(c.features).filter(([, f]) => f.grade !== 'absent').map(([k, f]) => `${k}:${f.grade}`).join(' '));
  });
}
console.log('misses', n, 'of', pick.length, 'ms', Date.now() - t0);
await pool.end();
await stop();
