// Compression of text answers (src/main/compression.ts): large answers are compressed with br or gzip for clients
// that accept them and decompress to the very bytes sent plain; small ones, images and clients that accept
// neither get them plain; a compressed charged answer is charged once.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { ledgerCheck } from '../src/accounts/ledger.js';
import { compressible } from '../src/main/compression.js';
import { loadFixture } from './support/fixture.js';
import { testApp, type TestApp } from './support/app.js';
import { importCorps } from './support/records.js';

let t: TestApp;
let base: string;

before(async () => {
  t = await testApp();
  await loadFixture(t.db.pool);
  // Entities enough for a page of answers past the 8 KB below which nothing is compressed.
  await importCorps(
    t.db.pool,
    Array.from({ length: 60 }, (_, i) => ({
      doc: `Z${String(i + 1).padStart(11, '0')}`,
      name: `ZEPHYRINE HOLDINGS ${i + 1} LLC`,
      city: 'TAMPA',
      zip: '33602',
    })),
  );
  base = await t.app.http.listen({ host: '127.0.0.1', port: 0 });
});
after(() => t.close());

const DECODE: Record<string, (b: Buffer) => Buffer> = {
  br: (b) => zlib.brotliDecompressSync(b),
  gzip: (b) => zlib.gunzipSync(b),
};

/** The answer's raw bytes (as sent, not decoded) and headers, over a real connection. */
function fetchRaw(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('compression', () => {
  const large = [
    ['the OpenAPI document', '/v1/openapi.json', /application\/json/],
    ['the API reference bundle', '/assets/vendor/swagger-ui/swagger-ui-bundle.js', /javascript/],
    ['Chart.js', '/assets/vendor/chart.umd.min.js', /javascript/],
    ['the stylesheet', '/assets/app.css', /text\/css/],
    ['llms-full.txt', '/llms-full.txt', /text\/plain/],
  ] as const;
  for (const [what, path, type] of large)
    for (const encoding of ['br', 'gzip'])
      it(`sends ${what} with ${encoding}, decoding to the plain answer's bytes`, async () => {
        const plain = await fetchRaw(path, { 'accept-encoding': 'identity' });
        assert.equal(plain.status, 200);
        assert.equal(plain.headers['content-encoding'], undefined);
        assert.match(String(plain.headers['content-type']), type);
        const packed = await fetchRaw(path, { 'accept-encoding': `${encoding}, identity;q=0.5` });
        assert.equal(packed.status, 200);
        assert.equal(packed.headers['content-encoding'], encoding);
        assert.match(String(packed.headers.vary), /accept-encoding/i);
        assert.ok(packed.body.length < plain.body.length / 2, `${packed.body.length} of ${plain.body.length}`);
        assert.ok(DECODE[encoding]!(packed.body).equals(plain.body));
      });

  it('compresses a charged answer and charges it once', async () => {
    const { workspace, key } = await t.workspace('pro');
    const before = (await ledgerCheck(t.db.pool, workspace.id)).monthly_remaining;
    const headers = { authorization: `Bearer ${key.key}` };
    const page = '/v1/entities/search?name=zephyrine%20holdings&limit=100';
    const plain = await fetchRaw(page, { ...headers, 'accept-encoding': 'identity' });
    const packed = await fetchRaw(page, { ...headers, 'accept-encoding': 'gzip' });
    assert.equal(packed.status, 200);
    assert.equal(packed.headers['content-encoding'], 'gzip');
    assert.ok(plain.body.length > 8192, `${plain.body.length} bytes`);
    // The same answer but for its own request id.
    const unpacked = JSON.parse(zlib.gunzipSync(packed.body).toString()) as { meta: { request_id: string } };
    assert.equal(unpacked.meta.request_id, packed.headers['x-request-id']);
    const expected = JSON.parse(plain.body.toString()) as { meta: { request_id: string } };
    assert.deepEqual({ ...unpacked, meta: {} }, { ...expected, meta: {} });
    await new Promise((r) => setTimeout(r, 150));
    const after = await ledgerCheck(t.db.pool, workspace.id);
    assert.equal(after.monthly_remaining, before - 2, 'two answers, two credits');
    assert.ok(after.consistent);
  });

  it('compresses text types, CSV included, and never event streams or images', () => {
    for (const type of [
      'text/csv; charset=utf-8',
      'application/json',
      'text/html; charset=utf-8',
      'text/css',
      'application/javascript; charset=utf-8',
      'image/svg+xml',
      'application/problem+json',
    ])
      assert.ok(compressible(type), type);
    for (const type of ['text/event-stream', 'image/png', 'application/zip', 'font/woff2'])
      assert.ok(!compressible(type), type);
  });

  it('sends small answers, images and clients that accept no encoding plain', async () => {
    const small = await fetchRaw('/healthz', { 'accept-encoding': 'br, gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    assert.deepEqual(JSON.parse(small.body.toString()), { status: 'ok' });
    // An entity's detail arrives in one round trip either way: under 8 KB, plain.
    const { key } = await t.workspace('pro');
    const auth = { authorization: `Bearer ${key.key}`, 'accept-encoding': 'br, gzip' };
    const detail = await fetchRaw('/v1/entities/L20000000001', auth);
    assert.equal(detail.status, 200);
    assert.ok(detail.body.length > 1024 && detail.body.length < 8192, `${detail.body.length} bytes`);
    assert.equal(detail.headers['content-encoding'], undefined);
    const none = await fetchRaw('/v1/openapi.json', {});
    assert.equal(none.headers['content-encoding'], undefined);
    assert.equal(Number(none.headers['content-length']), none.body.length);
    const deflateOnly = await fetchRaw('/v1/openapi.json', { 'accept-encoding': 'deflate' });
    assert.equal(deflateOnly.headers['content-encoding'], undefined);
  });
});
