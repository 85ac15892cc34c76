// The synthetic registry generator: byte-identical reruns, exact record lengths, planted malformed lines
// reported exactly, realistic proportions, and the awkward cases real files carry.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formationEntity, snapshotEntity } from '../src/sample/entity.js';
import { generateDataset, type GenerateSummary } from '../src/sample/index.js';
import type { DatasetContext, Entity } from '../src/sample/model.js';
import { inactivationOf } from '../src/registry/codes.js';
import { readZip, splitLines } from './support/zip.js';
import {
  CORPORATE_RECORD_BYTES,
  ENTITY_TYPES,
  EVENT_RECORD_BYTES,
  OFFICER_SLOTS,
  corporate,
  event,
  officer,
  officerSlotStart,
  type Field,
} from '../src/registry/layout.js';

const END_DATE = '2024-03-15';
let root: string;

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rl-generator-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function generate(name: string, entities: number, seed: number, days = 3, workers = 0): Promise<GenerateSummary> {
  return generateDataset({ entities, seed, days, endDate: END_DATE, outDir: path.join(root, name), workers });
}

const field = (rec: Buffer, f: Field): Buffer => rec.subarray(f.start, f.start + f.len);
const ascii = (rec: Buffer, f: Field): string => field(rec, f).toString('latin1').trimEnd();
const utf8 = new TextDecoder('utf-8', { fatal: true });
const isUtf8 = (bytes: Buffer): boolean => {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** A date field must be blank, all zeros, or a real MMDDYYYY date. */
function validDate(text: string): boolean {
  if (text === '' || text === '00000000') return true;
  const m = /^(\d{2})(\d{2})(\d{4})$/.exec(text);
  if (!m) return false;
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** What a strict parser requires of a corporate line; returns the problem, or null. */
function corporateProblem(line: Buffer): string | null {
  if (line.length !== CORPORATE_RECORD_BYTES) return `length ${line.length}`;
  if (!/^[A-Z]\d{11}$/.test(ascii(line, corporate.documentNumber))) return 'document number';
  if (!/^[AI]$/.test(ascii(line, corporate.status))) return 'status';
  if (!(ascii(line, corporate.filingType) in ENTITY_TYPES)) return 'filing type';
  const dates = [corporate.fileDate, corporate.lastTransactionDate, ...corporate.annualReports.map((r) => r.date)];
  for (const f of dates) if (!validDate(ascii(line, f))) return `date ${ascii(line, f)}`;
  return null;
}

function eventProblem(line: Buffer): string | null {
  if (line.length !== EVENT_RECORD_BYTES) return `length ${line.length}`;
  if (!/^[A-Z]\d{11}$/.test(ascii(line, event.documentNumber))) return 'document number';
  if (!/^\d{5}$/.test(ascii(line, event.sequence))) return 'sequence';
  for (const f of [event.effectiveDate, event.filedDate]) if (!validDate(ascii(line, f))) return 'date';
  return null;
}

describe('generateDataset', () => {
  let small: GenerateSummary;
  let medium: GenerateSummary;
  const snapshotLines: Buffer[] = [];
  const dailyLines: Buffer[] = [];

  before(async () => {
    small = await generate('small-a', 3000, 7);
    medium = await generate('medium', 25_000, 1, 5);
    for (const [, data] of await readZip(path.join(medium.out_dir, 'cordata.zip')))
      snapshotLines.push(...splitLines(data, true));
  });

  it('writes byte-identical files for the same options, with or without workers, others for another seed', async () => {
    const again = await generate('small-b', 3000, 7, 3, 2);
    assert.equal(again.workers, 2);
    const other = await generate('small-c', 3000, 8);
    const names = (await readdir(small.out_dir)).sort();
    assert.deepEqual((await readdir(again.out_dir)).sort(), names);
    assert.equal(names.length, 2 + 2 * 3);
    for (const name of names) {
      const [a, b] = await Promise.all([
        readFile(path.join(small.out_dir, name)),
        readFile(path.join(again.out_dir, name)),
      ]);
      assert.ok(a.equals(b), `${name} differs between runs`);
    }
    const [a, c] = await Promise.all([
      readFile(path.join(small.out_dir, 'cordata.zip')),
      readFile(path.join(other.out_dir, 'cordata.zip')),
    ]);
    assert.ok(!a.equals(c), 'another seed gives other records');
  });

  it('names the snapshot and daily files after the workdays before the end date', () => {
    assert.equal(small.snapshot_date, '2024-03-12');
    assert.deepEqual(
      small.files.map((f) => f.name),
      [
        'cordata.zip',
        'corevent.zip',
        '20240313c.txt',
        '20240313ce.txt',
        '20240314c.txt',
        '20240314ce.txt',
        '20240315c.txt',
        '20240315ce.txt',
      ],
    );
  });

  it('spreads the snapshot over ten CR LF members of 1442-byte lines, all well formed', async () => {
    const members = await readZip(path.join(medium.out_dir, 'cordata.zip'));
    assert.deepEqual(
      [...members.keys()],
      Array.from({ length: 10 }, (_, k) => `cordata${k}.txt`),
    );
    for (const data of members.values()) assert.equal(data.length % (CORPORATE_RECORD_BYTES + 2), 0);
    assert.equal(snapshotLines.length, 25_000);
    for (const line of snapshotLines) assert.equal(corporateProblem(line), null);
    const filler = snapshotLines.map((l) => ascii(l, corporate.filler)).filter((f) => f !== '');
    assert.equal(filler.length, 0, 'quarterly filler is blank');
  });

  it('writes one to three events per entity, 662 bytes and CR LF each', async () => {
    const members = await readZip(path.join(medium.out_dir, 'corevent.zip'));
    const lines = [...members.values()].flatMap((d) => splitLines(d, true));
    assert.equal(lines.length, medium.files[1]!.records);
    const perEntity = lines.length / 25_000;
    assert.ok(perEntity > 1 && perEntity < 3, `${perEntity} events per entity`);
    const names = new Map(snapshotLines.map((l) => [ascii(l, corporate.documentNumber), field(l, corporate.name)]));
    for (const line of lines) {
      assert.equal(eventProblem(line), null);
      const name = names.get(ascii(line, event.documentNumber));
      assert.ok(name?.equals(field(line, event.entityName)), 'an event names its entity as its record does');
    }
  });

  it('writes daily LF lines, NUL filler, and only the reported malformed lines', async () => {
    const reported = new Set(medium.malformed_lines.map((m) => `${m.file}:${m.line}`));
    assert.ok(medium.malformed_lines.length >= 3 && medium.malformed_lines.length <= 5);
    assert.equal(new Set(medium.malformed_lines.map((m) => m.file)).size, 1, 'all in one file');
    const found = new Set<string>();
    for (const f of medium.files.filter((x) => x.kind === 'daily_corporate')) {
      const lines = splitLines(await readFile(path.join(medium.out_dir, f.name)), false);
      lines.forEach((line, k) => {
        const problem = corporateProblem(line);
        if (problem) found.add(`${f.name}:${k + 1}`);
        else {
          dailyLines.push(line);
          assert.equal(field(line, corporate.filler).toString('hex'), '00000000');
          assert.equal(ascii(line, corporate.status), 'A', 'daily records are active');
        }
      });
      assert.equal(lines.length, f.records + medium.malformed_lines.filter((m) => m.file === f.name).length);
    }
    assert.deepEqual(found, reported);
    const known = new Set([...snapshotLines, ...dailyLines].map((l) => ascii(l, corporate.documentNumber)));
    for (const f of medium.files.filter((x) => x.kind === 'daily_events')) {
      const lines = splitLines(await readFile(path.join(medium.out_dir, f.name)), false);
      assert.equal(lines.length, f.records);
      for (const line of lines) {
        assert.equal(eventProblem(line), null);
        assert.ok(known.has(ascii(line, event.documentNumber)), 'a daily event is about a known entity');
      }
    }
  });

  it('keeps document numbers unique and twelve characters', () => {
    const changed = medium.daily.changed_entities;
    const numbers = [...snapshotLines, ...dailyLines].map((l) => ascii(l, corporate.documentNumber));
    assert.ok(numbers.every((n) => n.length === 12));
    // Daily changes re-emit snapshot numbers; everything else is new.
    assert.equal(new Set(numbers).size, numbers.length - changed);
    assert.equal(new Set(snapshotLines.map((l) => ascii(l, corporate.documentNumber))).size, snapshotLines.length);
  });

  it('carries the awkward cases real files have', () => {
    const names = snapshotLines.map((l) => field(l, corporate.name));
    assert.ok(
      names.some((n) => isUtf8(n) && /[^\x00-\x7f]/.test(n.toString('latin1'))),
      'a UTF-8 multibyte name',
    );
    const fields = snapshotLines.flatMap((l) => [
      field(l, corporate.name),
      field(l, corporate.principal.addr1),
      field(l, corporate.agent.name),
    ]);
    assert.ok(
      fields.some((f) => !isUtf8(f)),
      'a Windows-1252 field',
    );
    assert.ok(
      fields.some((f) => f.includes(0xa0) && !isUtf8(f)),
      'a lone 0xA0 byte',
    );
    const blankState =
      snapshotLines.filter((l) => ascii(l, corporate.principal.state) === '').length / snapshotLines.length;
    assert.ok(blankState > 0.25 && blankState < 0.35, `blank principal state ${blankState}`);
    const zips = snapshotLines.map((l) => field(l, corporate.principal.zip).toString('latin1'));
    for (const shape of [/^\d{5} USA $/, /^\d{5}-\d{3} $/, /^\d{5}-\d{4}$/, /^\d{5} {5}$/]) {
      assert.ok(
        zips.some((z) => shape.test(z)),
        `a ZIP like ${shape}`,
      );
    }
    assert.ok(
      snapshotLines.some((l) => /^\d{9}$/.test(ascii(l, corporate.agent.zip))),
      'a nine-digit agent ZIP',
    );
    const blankTypeSlot = snapshotLines.some((l) =>
      Array.from({ length: OFFICER_SLOTS }, (_, k) => officerSlotStart(k + 1)).some(
        (at) => l[at + officer.nameType.start] === 0x20 && l[at + officer.name.start] !== 0x20,
      ),
    );
    assert.ok(blankTypeSlot, 'an officer slot with a name but no name type');
    const years = snapshotLines.map((l) => Number(ascii(l, corporate.fileDate).slice(4)));
    assert.ok(
      years.some((y) => y < 1950),
      'a very old file date',
    );
    const fileDates = snapshotLines
      .map((l) => ascii(l, corporate.fileDate))
      .map((d) => `${d.slice(4)}-${d.slice(0, 2)}-${d.slice(2, 4)}`);
    assert.ok(
      fileDates.some((d) => d > medium.snapshot_date),
      'a file date after the snapshot',
    );
    assert.ok(
      snapshotLines.some((l) => ascii(l, corporate.moreThanSixOfficers) === 'Y'),
      'more than six officers',
    );
  });
});

describe('entity mix', () => {
  const ctx: DatasetContext = { seed: 3, snapshotDay: 19_800, entities: 1_000_000 };
  const N = 5000;
  const share = <T>(items: readonly T[], pred: (x: T) => boolean): number => items.filter(pred).length / items.length;

  it('has a real day’s types and officer counts in daily formations', () => {
    const day = Array.from({ length: N }, (_, k) => formationEntity(ctx, ctx.entities + k, ctx.snapshotDay + 1));
    const types: Record<string, number> = { FLAL: 0.77, DOMP: 0.165, DOMNP: 0.03, FORL: 0.026 };
    for (const [type, expected] of Object.entries(types)) {
      const got = share(day, (e) => e.type === type);
      assert.ok(Math.abs(got - expected) < 0.025, `${type} ${got}`);
    }
    const officers: Record<number, number> = { 0: 0.04, 1: 0.63, 2: 0.22, 3: 0.065 };
    for (const [count, expected] of Object.entries(officers)) {
      const got = share(day, (e) => e.officers.length === Number(count));
      assert.ok(Math.abs(got - expected) < 0.025, `${count} officers ${got}`);
    }
    assert.ok(day.every((e) => e.status === 'A' && e.history.length === 0));
  });

  it('gives LLC slots mostly MGR and AMBR, and partnerships general partners', () => {
    const entities = Array.from({ length: N }, (_, k) => snapshotEntity(ctx, k));
    const llcSlots = entities.filter((e) => e.type === 'FLAL').flatMap((e) => e.officers);
    const mgrAmbr = share(llcSlots, (o) => o.title === 'MGR' || o.title === 'AMBR');
    assert.ok(mgrAmbr > 0.6 && mgrAmbr < 0.73, `MGR+AMBR ${mgrAmbr}`);
    const corpTitles = new Set(
      entities.filter((e) => e.type === 'DOMP').flatMap((e) => e.officers.map((o) => o.title)),
    );
    for (const t of ['P', 'PRES', 'VP', 'S', 'T', 'D', 'DIR']) assert.ok(corpTitles.has(t), `corporation title ${t}`);
    const lpSlots = entities.filter((e) => e.type === 'DOMLP' || e.type === 'FORLP').flatMap((e) => e.officers);
    assert.ok(share(lpSlots, (o) => o.title === 'G') > 0.7);
  });

  it('has the historical registry’s type mix and activity', () => {
    const entities = Array.from({ length: N }, (_, k) => snapshotEntity(ctx, k));
    assert.ok(Math.abs(share(entities, (e) => e.type === 'FLAL') - 0.5) < 0.03);
    assert.ok(Math.abs(share(entities, (e) => e.type === 'DOMP') - 0.3) < 0.03);
    assert.ok(Math.abs(share(entities, (e) => e.status === 'A') - 0.45) < 0.03);
    const lastCode = (e: Entity): string | undefined => e.history[e.history.length - 1]?.code;
    const inactive = entities.filter((e) => e.status === 'I');
    assert.ok(
      inactive.every((e) => inactivationOf(lastCode(e) ?? '') !== undefined),
      'an inactive entity ends with its inactivation',
    );
    const active = entities.filter((e) => e.status === 'A');
    assert.ok(
      active.every((e) => inactivationOf(lastCode(e) ?? '') === undefined),
      'an active entity does not',
    );
    const endings = inactive.map((e) => lastCode(e)!);
    const top = [...new Set(endings)].sort(
      (a, b) => share(endings, (c) => c === b) - share(endings, (c) => c === a),
    )[0];
    assert.equal(top, 'CORAMADMAR');
    assert.ok(
      share(entities, (e) => e.agent.nameType === 'C' && e.agent.name === 'CORPORATION SERVICE COMPANY') > 0.02,
    );
  });

  it('derives the same entity from the same seed and index', () => {
    assert.deepEqual(snapshotEntity(ctx, 12345), snapshotEntity(ctx, 12345));
    assert.notDeepEqual(snapshotEntity(ctx, 12345), snapshotEntity({ ...ctx, seed: 4 }, 12345));
  });
});
