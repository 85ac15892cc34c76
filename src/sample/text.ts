// Field text: a JavaScript string is written as UTF-8; a byte array holds Windows-1252 bytes written as is.
import type { Rng } from './random.js';

export type Text = string | Uint8Array;

/** Strips accents (`PEÑA` to `PENA`): most of the registry is plain ASCII. */
export function foldAccents(s: string): string {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/**
 * The Windows-1252 bytes of a string of Latin-1 letters (`Ñ` 0xD1, `É` 0xC9), with one space turned into a
 * lone 0xA0 byte between ASCII characters (so no two high bytes can form valid UTF-8 by accident).
 */
function windows1252(s: string, rng: Rng): Uint8Array {
  const bytes = Buffer.from(s, 'latin1');
  const spaces: number[] = [];
  for (let k = 1; k < bytes.length - 1; k++) {
    if (bytes[k] === 0x20 && bytes[k - 1]! < 0x80 && bytes[k + 1]! < 0x80) spaces.push(k);
  }
  if (spaces.length > 0 && rng.chance(0.5)) bytes[rng.pick(spaces)] = 0xa0;
  return bytes;
}

/** An accented string written either as UTF-8 or as Windows-1252 bytes, the two ways real files carry it. */
export function awkwardText(s: string, rng: Rng): Text {
  return rng.chance(0.55) ? s : windows1252(s, rng);
}
