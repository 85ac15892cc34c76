import { readFileSync } from 'node:fs';
import pg from 'pg';
import { database } from './setup.js';
const { url, stop } = await database('bench_100000');
const c = new pg.Client(url);
await c.connect();
console.log((await c.query(readFileSync(process.argv[2]!, 'utf8'))).rows);
await c.end();
await stop();
