// Match rows beside a generated dataset (docs/bulk-files.md, "Match rows"): names as customers hold them in a
// CRM export, each labelled with its kind of variant and the document number of the entity it names (none for a
// negative). Row k is a pure function of (seed, k) and the dataset, so the first K rows of a longer file are
// the rows of a file of K.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { corporate } from '../registry/layout.js';
import { dailyChange } from './changes.js';
import { documentNumberOf } from './core.js';
import type { DayPlan } from './daily.js';
import { snapshotEntity } from './entity.js';
import { floridaPlace } from './geography.js';
import { abbreviate, changeLegalForm, misspell, replaceWord, swapWords, toggleThe } from './match-variants.js';
import { isPerson, type DatasetContext, type Entity } from './model.js';
import { Rng, STREAM } from './random.js';
import type { Text } from './text.js';

export const MATCH_ROWS_FILE = 'match-rows.csv';
export const MATCH_COLUMNS = ['reference', 'name', 'city', 'zip', 'address', 'officer', 'kind', 'truth'] as const;
/** The kinds of row, taken in turn: every kind has its share of any file of at least this many rows. */
export const MATCH_KINDS = [
  'exact',
  'abbreviation',
  'the',
  'legal_form',
  'reordered',
  'typo1',
  'typo2',
  'city',
  'zip',
  'officer',
  'negative',
] as const;
type MatchKind = (typeof MATCH_KINDS)[number];
export type MatchRow = Record<(typeof MATCH_COLUMNS)[number], string>;

/** Entities drawn for a row before it falls back to an exact one: a kind needs a name it can change. */
const ENTITY_TRIES = 50;
/** Share of rows carrying the street line, as a CRM holds it for some customers only. */
const ADDRESS_SHARE = 0.3;
/** Share of `city` rows with the city left blank; the others name another Florida city. */
const BLANK_CITY_SHARE = 0.5;

/** Field text as a customer's file holds it: Windows-1252 bytes read as such, a no-break space as a space. */
const textOf = (t: Text): string =>
  typeof t === 'string' ? t : Buffer.from(t).toString('latin1').replaceAll('\u00a0', ' ');

/** The snapshot entities the daily files re-emit, as the last of them leaves each (newest wins). */
function changedEntities(ctx: DatasetContext, plans: readonly DayPlan[]): Map<string, Entity> {
  const changed = new Map<string, Entity>();
  for (const plan of plans) {
    for (let k = 0; k < plan.changes; k++) {
      const { entity } = dailyChange(ctx, plan.fileDay, k);
      changed.set(entity.documentNumber, entity);
    }
  }
  return changed;
}

/** A name the registry holds whole, in a place with a ZIP5: what every kind of row starts from. */
function usable(e: Entity): e is Entity & { name: string } {
  return (
    typeof e.name === 'string' &&
    Buffer.byteLength(e.name) <= corporate.name.len &&
    textOf(e.principal.city) !== '' &&
    /^\d{5}/.test(e.principal.zip)
  );
}

/** A ZIP5 with one digit changed. */
function wrongZip(rng: Rng, zip: string): string {
  const at = rng.int(zip.length);
  const digit = (Number(zip[at]) + 1 + rng.int(9)) % 10;
  return zip.slice(0, at) + String(digit) + zip.slice(at + 1);
}

function otherCity(rng: Rng, city: string): string {
  if (rng.chance(BLANK_CITY_SHARE)) return '';
  let other = floridaPlace(rng).city;
  while (other === city) other = floridaPlace(rng).city;
  return other;
}

/** A person officer as "First Last", or null. */
function officerName(rng: Rng, e: Entity): string | null {
  const people = e.officers.flatMap((o) => (isPerson(o.name) ? [o.name] : []));
  if (people.length === 0) return null;
  const p = rng.pick(people);
  return `${textOf(p.first)} ${textOf(p.last)}`;
}

/** The row of `kind` naming `e`, or null when its name (or its officers) offer nothing to change. */
function rowFor(rng: Rng, kind: MatchKind, e: Entity & { name: string }): Omit<MatchRow, 'reference'> | null {
  const city = textOf(e.principal.city);
  const zip = e.principal.zip.slice(0, 5);
  const address = rng.chance(ADDRESS_SHARE) ? textOf(e.principal.addr1) : '';
  const row = { name: e.name, city, zip, address, officer: '', kind, truth: e.documentNumber };
  const named = (name: string | null): typeof row | null => (name === null ? null : { ...row, name });
  switch (kind) {
    case 'exact':
      return row;
    case 'abbreviation':
      return named(abbreviate(rng, e.name));
    case 'the':
      return named(toggleThe(e.name));
    case 'legal_form':
      return named(changeLegalForm(rng, e.name));
    case 'reordered':
      return named(swapWords(rng, e.name));
    case 'typo1':
      return named(misspell(rng, e.name, 1));
    case 'typo2':
      return named(misspell(rng, e.name, 2));
    case 'city':
      return { ...row, city: otherCity(rng, city) };
    case 'zip':
      return { ...row, zip: wrongZip(rng, zip) };
    case 'officer': {
      // The officer stands in for the place: a CRM contact without an address.
      const officer = officerName(rng, e);
      return officer === null ? null : { ...row, city: '', zip: '', officer };
    }
    case 'negative': {
      const name = replaceWord(rng, e.name);
      return name === null ? null : { ...row, name, truth: '' };
    }
  }
}

/** Row k (0-based): its kind in turn, the entity a draw of its own stream. */
function matchRow(ctx: DatasetContext, changed: ReadonlyMap<string, Entity>, k: number): MatchRow {
  const rng = new Rng(ctx.seed, STREAM.matchRow, k);
  const kind = MATCH_KINDS[k % MATCH_KINDS.length]!;
  let fallback: (Entity & { name: string }) | null = null;
  for (let tries = 0; tries < ENTITY_TRIES; tries++) {
    const index = rng.int(ctx.entities);
    const e = changed.get(documentNumberOf(ctx, index)) ?? snapshotEntity(ctx, index);
    if (!usable(e)) continue;
    fallback ??= e;
    const row = rowFor(rng, kind, e);
    if (row) return { reference: `row-${k + 1}`, ...row };
  }
  if (!fallback) throw new Error(`match row ${k + 1}: no entity of ${ctx.entities} has a usable name`);
  return { reference: `row-${k + 1}`, ...rowFor(rng, 'exact', fallback)! };
}

export interface MatchRowsSummary {
  file: string;
  rows: number;
  kinds: Record<string, number>;
}

/** The first `count` rows of the dataset as CSV (a header, RFC 4180 quoting, CR LF). */
export async function writeMatchRows(
  ctx: DatasetContext,
  plans: readonly DayPlan[],
  outDir: string,
  count: number,
): Promise<MatchRowsSummary> {
  const changed = changedEntities(ctx, plans);
  const rows = Array.from({ length: count }, (_, k) => matchRow(ctx, changed, k));
  const csv = stringify(
    rows.map((r) => MATCH_COLUMNS.map((c) => r[c])),
    { header: true, columns: [...MATCH_COLUMNS], record_delimiter: '\r\n' },
  );
  await writeFile(join(outDir, MATCH_ROWS_FILE), csv);
  const kinds: Record<string, number> = {};
  for (const r of rows) kinds[r.kind] = (kinds[r.kind] ?? 0) + 1;
  return { file: MATCH_ROWS_FILE, rows: count, kinds };
}
