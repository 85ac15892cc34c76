// Dates as whole days since 1970-01-01 (UTC): cheap to add and compare, formatted through a cache.

import { DAY_MS } from '../clock.js';
/** Days the caches cover: 1900-01-01 to 2100-12-31. */
const FIRST_DAY = Date.UTC(1900, 0, 1) / DAY_MS;
const LAST_DAY = Date.UTC(2100, 11, 31) / DAY_MS;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil; no Date needed). */
export function dayOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Parses `YYYY-MM-DD`, rejecting impossible dates. */
export function parseIsoDay(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) throw new Error(`not a YYYY-MM-DD date: ${text}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = dayOf(y, mo, d);
  if (isoOf(day) !== text) throw new Error(`not a real date: ${text}`);
  return day;
}

export function todayUtc(): number {
  return Math.floor(Date.now() / DAY_MS);
}

export function isoOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Noon of that date on the local clock: zip entries keep DOS times, which have no zone, so local noon is written
 * as 12:00 of that date whatever the machine's time zone.
 */
export function localNoonOf(day: number): Date {
  const [y, m, d] = isoOf(day).split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d, 12, 0, 0);
}

/** 0 Sunday .. 6 Saturday (1970-01-01 was a Thursday). */
function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

function clampDay(day: number): number {
  return day < FIRST_DAY ? FIRST_DAY : day > LAST_DAY ? LAST_DAY : day;
}

const years = new Int16Array(LAST_DAY - FIRST_DAY + 1);
{
  let k = 0;
  for (let y = 1900; y <= 2100; y++) {
    const n = dayOf(y + 1, 1, 1) - dayOf(y, 1, 1);
    years.fill(y, k, k + n);
    k += n;
  }
}

export function yearOf(day: number): number {
  return years[clampDay(day) - FIRST_DAY]!;
}

const formatted: (string | undefined)[] = new Array(LAST_DAY - FIRST_DAY + 1);

/** `MMDDYYYY`, the registry's date format. */
function mmddyyyy(day: number): string {
  const k = clampDay(day) - FIRST_DAY;
  let s = formatted[k];
  if (s === undefined) {
    const iso = isoOf(k + FIRST_DAY);
    s = iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(0, 4);
    formatted[k] = s;
  }
  return s;
}

const dateBytes = new Uint8Array(formatted.length * 8);
const dateBytesReady = new Uint8Array(formatted.length);

/** Writes `MMDDYYYY` into `buf` at `at`, from a per-day byte cache (records carry several dates each). */
export function putMmddyyyy(buf: Uint8Array, at: number, day: number): void {
  const k = clampDay(day) - FIRST_DAY;
  const from = k * 8;
  if (dateBytesReady[k] === 0) {
    const s = mmddyyyy(day);
    for (let j = 0; j < 8; j++) dateBytes[from + j] = s.charCodeAt(j);
    dateBytesReady[k] = 1;
  }
  for (let j = 0; j < 8; j++) buf[at + j] = dateBytes[from + j]!;
}

/** `YYYYMMDD`, as in daily file names. */
export function yyyymmdd(day: number): string {
  return isoOf(day).replaceAll('-', '');
}

/** The last `count` Monday-to-Friday days ending at `end` (inclusive), oldest first. */
export function lastWorkdays(end: number, count: number): number[] {
  const out: number[] = [];
  for (let day = end; out.length < count; day--) {
    const w = weekdayOf(day);
    if (w !== 0 && w !== 6) out.push(day);
  }
  return out.reverse();
}
