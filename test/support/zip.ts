// Reading generated files back: a zip's members, and a file's lines.
import assert from 'node:assert/strict';
import yauzl from 'yauzl';

/** Every member of a zip, by name. */
export function readZip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const members = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const parts: Buffer[] = [];
          stream.on('data', (c: Buffer) => parts.push(c));
          stream.on('end', () => {
            members.set(entry.fileName, Buffer.concat(parts));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(members));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Splits on LF, keeping each line's bytes without its terminator (CR LF or LF). */
export function splitLines(data: Buffer, crlf: boolean): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let k = data.indexOf(0x0a); k >= 0; k = data.indexOf(0x0a, start)) {
    out.push(data.subarray(start, crlf && data[k - 1] === 0x0d ? k - 1 : k));
    start = k + 1;
  }
  assert.equal(start, data.length, 'the file ends with a line terminator');
  return out;
}
