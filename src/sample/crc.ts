// yazl checksums every byte it archives with buffer-crc32, a JavaScript loop on the main thread that costs more
// than generating the records (about 240 MB/s against 1.7 GB/s here). Node's zlib.crc32 computes the same CRC-32
// natively, so yazl's copy of buffer-crc32 is pointed at it, once both are seen to agree. The archives' bytes do
// not change; yauzl already prefers zlib.crc32 the same way.
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

interface BufferCrc32 {
  unsigned: (data: Buffer, previous?: number) => number;
}

let patched = false;

export function useNativeCrc32(): void {
  if (patched || typeof zlib.crc32 !== 'function') return;
  const fromYazl = createRequire(createRequire(import.meta.url).resolve('yazl'));
  const crc = fromYazl('buffer-crc32') as BufferCrc32;
  const sample = Buffer.from('L23000448570 SUNSHINE HOLDINGS, LLC \u00d1 \u00a0');
  const native = (data: Buffer, previous?: number): number => zlib.crc32(data, previous ?? 0);
  const agree = crc.unsigned(sample) === native(sample) && crc.unsigned(sample, 12345) === native(sample, 12345);
  if (agree) crc.unsigned = native;
  patched = true;
}
