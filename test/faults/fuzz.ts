// The fault suite's fuzz stage: inputs that once answered outside the contract or charged for no answer. People
// names of one known and unknown words, MCP methods named like object properties, malformed chunked bodies, and
// clients that give up while the read is slow. Returns every failure, worded.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type pg from 'pg';
import { charges } from './ledger.js';

const OBJECT_PROPERTY_METHODS = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'];

/** A word no registry holds: letters only, no vowels but y (so never a name). */
const unknownWord = (): string => [...randomBytes(5)].map((b) => 'bcdfghjklmnpqrstvwxz'[b % 20]).join('');

function raw(base: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    let got = '';
    socket.on('data', (d) => (got += d.toString()));
    socket.on('close', () => resolve(got));
    socket.on('error', () => resolve(got));
  });
}

export async function fuzz(base: string, pool: pg.Pool, workspace: { id: string; key: string }): Promise<string[]> {
  const failures: string[] = [];
  const auth = { authorization: `Bearer ${workspace.key}` };
  let answered = 0; // answers that cost a credit

  for (let i = 0; i < 20; i++) {
    const known = ['smith', 'garcia', 'john', 'corporation'][i % 4];
    const name = [known, unknownWord(), ...(i % 2 ? [unknownWord()] : [])].join(' ');
    for (const route of ['officers', 'agents']) {
      const res = await fetch(`${base}/v1/${route}/search?name=${encodeURIComponent(name)}`, { headers: auth });
      await res.arrayBuffer();
      if (res.status !== 200) failures.push(`/v1/${route}/search?name=${name} answered ${res.status}`);
      else answered++;
    }
  }

  for (const [i, method] of OBJECT_PROPERTY_METHODS.entries()) {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method, params: {} }),
    });
    const body = (await res.json()) as { id?: unknown; error?: { code?: number } };
    if (res.status !== 200 || body.error?.code !== -32601 || body.id !== 100 + i)
      failures.push(`MCP method ${method}: HTTP ${res.status}, ${JSON.stringify(body).slice(0, 120)}`);
  }

  for (let i = 0; i < 5; i++) {
    const answer = await raw(
      base,
      `GET /v1/entities/L20000000001 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${workspace.key}\r\n` +
        'Transfer-Encoding: chunked\r\n\r\nZZZ\r\nnot a chunk\r\n',
    );
    if (!answer.startsWith('HTTP/1.1 400 ')) failures.push(`malformed chunked body answered ${answer.slice(0, 40)}`);
  }

  // The entity reads wait behind a lock; each client gives up after 300 ms; then the lock goes.
  const blocker = await pool.connect();
  await blocker.query('BEGIN');
  await blocker.query('LOCK TABLE registry.entities IN ACCESS EXCLUSIVE MODE');
  await Promise.all(
    Array.from({ length: 10 }, () =>
      fetch(`${base}/v1/entities/L22000000003`, { headers: auth, signal: AbortSignal.timeout(300) }).catch(() => null),
    ),
  );
  await blocker.query('COMMIT');
  blocker.release();
  await new Promise((resolve) => setTimeout(resolve, 500));

  const billed = [...(await charges(pool, [workspace.id])).values()].reduce((n, c) => n + c.net, 0);
  if (billed !== answered) failures.push(`fuzz: ${answered} answers that cost a credit, ${billed} charged`);
  return failures;
}
