// Splits a byte stream into records: one Buffer per line, without its LF or CR LF, numbered from 1,
// handed over a chunk's worth at a time (a promise per chunk, not per record).

export interface Line {
  readonly number: number;
  readonly bytes: Buffer;
}

export const LF = 0x0a;
const CR = 0x0d;
/** A DOS end-of-file mark or a blank line is not a record. */
export const isBlank = (b: Buffer): boolean => b.length === 0 || (b.length === 1 && b[0] === 0x1a);
/** The line of `buf` from `start` to `stop` (its LF, or the end of the bytes), without a CR before it. */
export const lineOf = (buf: Buffer, start: number, stop: number): Buffer =>
  buf.subarray(start, stop > start && buf[stop - 1] === CR ? stop - 1 : stop);

/** Yields the lines of `chunks`, in batches. A batch's buffers point into the chunk it came from. */
export async function* lineBatches(chunks: AsyncIterable<Buffer>): AsyncGenerator<Line[]> {
  let carry: Buffer | null = null;
  let number = 0;
  for await (const chunk of chunks) {
    const buf: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = null;
    const batch: Line[] = [];
    let start = 0;
    for (let nl = buf.indexOf(LF, start); nl !== -1; nl = buf.indexOf(LF, start)) {
      number++;
      const bytes = lineOf(buf, start, nl);
      if (!isBlank(bytes)) batch.push({ number, bytes });
      start = nl + 1;
    }
    if (start < buf.length) carry = Buffer.from(buf.subarray(start));
    if (batch.length) yield batch;
  }
  if (carry) {
    const bytes = lineOf(carry, 0, carry.length);
    number++;
    if (!isBlank(bytes)) yield [{ number, bytes }];
  }
}
