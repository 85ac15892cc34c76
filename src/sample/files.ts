// Streaming output: records are encoded into large buffers and handed to streams with backpressure, so memory
// stays flat however many records are written.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { PassThrough, Transform, type TransformCallback, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import { useNativeCrc32 } from './crc.js';

const CHUNK_BYTES = 1 << 20;

/** Line-by-line output into big buffers; each flush hands over what was written, never reusing those bytes. */
export class LineSink {
  private buf: Buffer;
  private pos = 0;
  private readonly done: Buffer[] = [];

  // Never from Buffer's shared pool: a worker hands these buffers' memory over to the main thread.
  constructor(private readonly chunkBytes = CHUNK_BYTES) {
    this.buf = Buffer.allocUnsafeSlow(chunkBytes);
  }

  /** The buffer to write a claimed line into. */
  get buffer(): Buffer {
    return this.buf;
  }

  /** Claims `n` bytes for one line and returns their offset in `buffer`. */
  claim(n: number): number {
    if (this.pos + n > this.buf.length) {
      if (this.pos > 0) this.done.push(this.buf.subarray(0, this.pos));
      this.buf = Buffer.allocUnsafeSlow(Math.max(this.chunkBytes, n));
      this.pos = 0;
    }
    const at = this.pos;
    this.pos += n;
    return at;
  }

  /** Appends ready-made bytes as a line. */
  append(line: Uint8Array): void {
    this.buf.set(line, this.claim(line.length));
  }

  /** The bytes written since the last flush; later lines go into the rest of the same allocation. */
  flush(): Buffer[] {
    if (this.pos > 0) {
      this.done.push(this.buf.subarray(0, this.pos));
      this.buf = this.buf.subarray(this.pos);
      this.pos = 0;
    }
    return this.done.splice(0);
  }
}

/** Writes chunks to a stream, then waits while it is full. */
export async function writeChunks(stream: Writable, chunks: readonly Buffer[]): Promise<void> {
  let ok = true;
  for (const chunk of chunks) ok = stream.write(chunk);
  if (!ok) await once(stream, 'drain');
}

/** Writes the sink's pending bytes, waiting while the stream is full. */
export function drainInto(sink: LineSink, stream: Writable): Promise<void> {
  return writeChunks(stream, sink.flush());
}

/**
 * Gathers a stream's small chunks (yazl passes on zlib's 16 KB pieces) into large ones, so the file gets a few
 * big writes instead of many small ones: each write is a round trip to libuv's threads.
 */
class Coalesce extends Transform {
  private parts: Buffer[] = [];
  private size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.size >= CHUNK_BYTES) this.pushParts();
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.size > 0) this.pushParts();
    done();
  }

  private pushParts(): void {
    this.push(Buffer.concat(this.parts, this.size));
    this.parts = [];
    this.size = 0;
  }
}

export interface ZipOptions {
  readonly mtime: Date;
  readonly compressionLevel: number;
  /** For members that may pass 4 GB: their local headers must then say ZIP64 up front. */
  readonly zip64: boolean;
}

/** A zip file being written: one writable stream per member, filled in order. */
export class ZipWriter {
  private readonly zip = new ZipFile();
  private readonly members: PassThrough[] = [];
  private readonly written: Promise<void>;

  constructor(path: string, memberNames: readonly string[], opts: ZipOptions) {
    useNativeCrc32();
    for (const name of memberNames) {
      const member = new PassThrough({ highWaterMark: 4 * CHUNK_BYTES });
      this.zip.addReadStream(member, name, {
        mtime: opts.mtime,
        mode: 0o100644,
        compressionLevel: opts.compressionLevel,
        forceZip64Format: opts.zip64,
        // DOS times only: the UTC extra field would make the bytes depend on the machine's time zone.
        forceDosTimestamp: true,
      });
      this.members.push(member);
    }
    this.written = pipeline(this.zip.outputStream, new Coalesce(), createWriteStream(path));
    // A failed write must not leave the producer waiting forever for 'drain'.
    const fail = (err: Error): void => this.members.forEach((m) => m.destroy(err));
    this.zip.on('error', fail);
    this.written.catch(fail);
  }

  member(k: number): PassThrough {
    return this.members[k]!;
  }

  /** Ends every member and the archive, and waits until the file is on disk. */
  async close(): Promise<void> {
    for (const m of this.members) if (!m.writableEnded) m.end();
    this.zip.end();
    await this.written;
  }
}

/** A plain output file with backpressure-aware writes. */
export class FileWriter {
  readonly stream: Writable;
  private readonly finished: Promise<void>;

  constructor(path: string) {
    this.stream = createWriteStream(path, { highWaterMark: 4 * CHUNK_BYTES });
    this.finished = finished(this.stream);
    // Reported by close(); caught here so an early failure is not an unhandled rejection meanwhile.
    this.finished.catch(() => undefined);
  }

  async close(): Promise<void> {
    this.stream.end();
    await this.finished;
  }
}
