// Compression of every text answer (JSON, HTML, CSS, JS, CSV, the OpenAPI document) for clients that accept
// br or gzip. It works in onSend, after a route (and src/api/delivery.ts) has decided and settled the answer, so
// it changes only the bytes on the wire: a charge is kept before the first byte as before, and a connection
// closed before the compressed answer is all written is still refunded ('close' before 'finish').
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Answers below this many bytes are sent as they are: they reach the client in its first round trip either way (a
 * new connection's window is 10 segments, about 14 KB), and compressing one cost an entity detail 0.5 ms of its 2.8.
 */
const MIN_COMPRESSED_BYTES = 8 * 1024;

/**
 * Text types only: images, zips and fonts are compressed already, and an event stream must reach the client
 * event by event (a compressor would hold events back until its buffer fills).
 */
const COMPRESSIBLE_TYPE =
  /^(?:text\/(?!event-stream)[\w.+-]+|application\/(?:[\w.+-]+\+)?(?:json|javascript|xml)|image\/svg\+xml)(?:;|$)/;

/** Whether an answer of this Content-Type is compressed. */
export const compressible = (type: string): boolean => COMPRESSIBLE_TYPE.test(type);

/** Registers compression for every route declared after it (the plugin hooks each route as it is added). */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: MIN_COMPRESSED_BYTES,
    customTypes: compressible,
    // Request bodies are not decompressed: a small compressed body could expand past the body limits.
    globalDecompression: false,
  });
}
