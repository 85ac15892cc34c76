// Splits a byte stream into records: one Buffer per line, without its LF or CR LF, numbered from 1,
// handed over a chunk's worth at a time (a promise per chunk, not per record).

export interface Line {
  readonly number: number;
  readonly bytes: Buffer;
}

const LF = 0x0a;
const CR = 0x0d;
/** A DOS end-of-file mark or a blank line is not a record. */
const isBlank = (b: Buffer): boolean => b.length === 0 || (b.length === 1 && b[0] === 0x1a);

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
      const end = nl > start && buf[nl - 1] === CR ? nl - 1 : nl;
      number++;
      const bytes = buf.subarray(start, end);
      if (!isBlank(bytes)) batch.push({ number, bytes });
      start = nl + 1;
    }
    if (start < buf.length) carry = Buffer.from(buf.subarray(start));
    if (batch.length) yield batch;
  }
  if (carry) {
    const bytes = carry[carry.length - 1] === CR ? carry.subarray(0, -1) : carry;
    number++;
    if (!isBlank(bytes)) yield [{ number, bytes }];
  }
}
