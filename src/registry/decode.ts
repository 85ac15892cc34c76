// Byte-exact field decoding: a field is sliced from the raw record first, then decoded on its own,
// as UTF-8 when it is valid UTF-8 and as Windows-1252 otherwise (real files mix both).
import { isAscii as bufferIsAscii } from 'node:buffer';
import type { Field } from './layout.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const cp1252 = new TextDecoder('windows-1252');

/** A record the importer must reject, with the reason reported beside its file and line. */
export class MalformedRecord extends Error {}

const isAscii = (buf: Buffer, start: number, end: number): boolean => bufferIsAscii(buf.subarray(start, end));

/** Length of `bytes` without a UTF-8 sequence cut off at its end (the registry truncates by bytes). */
function withoutCutSequence(bytes: Uint8Array): number {
  let i = bytes.length - 1;
  let back = 0;
  while (i >= 0 && back < 3 && ((bytes[i] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return bytes.length;
  const lead = bytes[i] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? i : bytes.length;
}

/** `filled`: the text runs to the field's last byte, where the registry may have cut a UTF-8 sequence. */
function decodeBytes(bytes: Uint8Array, filled: boolean): string {
  try {
    return utf8.decode(bytes);
  } catch {
    const whole = filled ? withoutCutSequence(bytes) : bytes.length;
    if (whole < bytes.length) {
      try {
        return utf8.decode(bytes.subarray(0, whole));
      } catch {
        // not UTF-8 after all
      }
    }
    return cp1252.decode(bytes);
  }
}

// Most records are pure ASCII: then the line is decoded once and its fields are string slices
// (byte and character offsets agree). The last line seen is remembered, as a record's fields are
// read one after another.
let lastLine: Buffer | null = null;
let lastAscii: string | null = null;

function asciiLine(buf: Buffer): string | null {
  if (buf !== lastLine) {
    lastLine = buf;
    lastAscii = isAscii(buf, 0, buf.length) ? buf.toString('latin1') : null;
  }
  return lastAscii;
}

/** The trimmed text of bytes [start, start+len) of `buf` ('' when blank). NUL bytes count as blanks. */
function text(buf: Buffer, start: number, len: number): string {
  const line = asciiLine(buf);
  if (line !== null) {
    // Native slicing and trimming; NUL bytes (daily files' filler) read as blanks.
    const raw = line.slice(start, start + len);
    return (raw.includes('\u0000') ? raw.replace(/\u0000/g, ' ') : raw).trim();
  }
  let s = start;
  const end = Math.min(start + len, buf.length);
  let e = end;
  while (e > s && (buf[e - 1] === 0x20 || buf[e - 1] === 0x00)) e--;
  while (s < e && (buf[s] === 0x20 || buf[s] === 0x00)) s++;
  if (s === e) return '';
  const raw = isAscii(buf, s, e) ? buf.toString('latin1', s, e) : decodeBytes(buf.subarray(s, e), e === end);
  return raw.includes('\u0000') ? raw.replace(/\u0000/g, ' ').trim() : raw.trim();
}

export const field = (buf: Buffer, f: Field, base = 0): string => text(buf, base + f.start, f.len);

const NEEDS_COLLAPSE = /\s\s|[^\S ]/;

/** `text` with runs of inner blanks collapsed (names and addresses). */
export const words = (buf: Buffer, f: Field, base = 0): string => {
  const t = field(buf, f, base);
  return NEEDS_COLLAPSE.test(t) ? t.replace(/\s+/g, ' ') : t;
};

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** True when y-m-d is a real calendar date. */
function isRealDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const max = m === 2 && isLeap(y) ? 29 : (DAYS_IN_MONTH[m - 1] as number);
  return d <= max;
}

/** An `MMDDYYYY` field as `YYYY-MM-DD`; null when blank or all zeros; MalformedRecord when impossible. */
export function date(buf: Buffer, f: Field, name: string, base = 0): string | null {
  const raw = field(buf, f, base);
  if (raw === '' || /^0+$/.test(raw)) return null;
  const m = /^(\d{2})(\d{2})(\d{4})$/.exec(raw);
  if (!m) throw new MalformedRecord(`${name}: not a MMDDYYYY date (${JSON.stringify(raw)})`);
  const [, mm, dd, yyyy] = m as unknown as [string, string, string, string];
  if (!isRealDate(Number(yyyy), Number(mm), Number(dd)) || Number(yyyy) === 0) {
    throw new MalformedRecord(`${name}: impossible date ${raw}`);
  }
  return `${yyyy}-${mm}-${dd}`;
}

/** The first five consecutive digits of a messy ZIP field (`33914 USA`, `32771-808`), else null. */
export function zip5(zip: string): string | null {
  return /\d{5}/.exec(zip)?.[0] ?? null;
}

/** The ZIP+4 extension of `32771-8080` or `327718080`, else null. */
export function zip4(zip: string): string | null {
  return /^\d{5}-?(\d{4})(?!\d)/.exec(zip)?.[1] ?? null;
}
