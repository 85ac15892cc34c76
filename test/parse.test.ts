// The record parsers on hand-built records, written at the spec's own 1-based offsets.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedRecord } from '../src/registry/decode.js';
import { parseCorporate, parseEvent } from '../src/registry/parse.js';
import { lineBatches } from '../src/registry/import/lines.js';
import { person, record, slot } from './support/records.js';

function fullRecord(extra: Array<[number, string | Buffer]> = []): Buffer {
  return record(1440, [
    [1, 'L23000448570'],
    [13, 'SUNSHINE HOLDINGS, LLC'],
    [205, 'A'],
    [206, 'FLAL'],
    [221, '123 MAIN ST'],
    [263, 'SUITE 200'],
    [305, 'FORT MYERS'],
    [333, 'FL'],
    [335, '33914 USA'],
    [345, 'US'],
    [347, 'PO BOX 55'],
    [431, 'NAPLES'],
    [459, 'FL'],
    [461, '34102-1234'],
    [471, 'US'],
    [473, '09222023'],
    [481, '12-3456789'],
    [495, 'N'],
    [496, '09292023'],
    [504, 'FL'],
    [506, '2024'],
    [511, '01152024'],
    [519, '2025'],
    [524, '02012025'],
    [545, person('GARCIA', 'MARIA', 'L', 'JR')],
    [587, 'P'],
    [588, '500 AGENT RD'],
    [630, 'TAMPA'],
    [658, 'FL'],
    [660, '336021234'],
    [slot(1), 'MGR P'],
    [slot(1) + 5, person('SMITH', 'JOHN', 'A', '')],
    [slot(1) + 47, '9 SECRET LN'],
    [slot(1) + 89, 'MIAMI'],
    [slot(1) + 117, 'FL'],
    [slot(1) + 119, '33101'],
    [slot(3), 'AMBRC'],
    [slot(3) + 5, 'ACME MANAGEMENT CORPORATION'],
    ...extra,
  ]);
}

describe('parseCorporate', () => {
  it('reads every field at its byte offset', () => {
    const r = parseCorporate(fullRecord());
    assert.equal(r.documentNumber, 'L23000448570');
    assert.equal(r.name, 'SUNSHINE HOLDINGS, LLC');
    assert.equal(r.status, 'A');
    assert.equal(r.filingType, 'FLAL');
    assert.deepEqual(r.principal, {
      addr1: '123 MAIN ST',
      addr2: 'SUITE 200',
      city: 'FORT MYERS',
      state: 'FL',
      zip: '33914 USA',
      zip5: '33914',
      zip4: null,
      country: 'US',
    });
    assert.deepEqual(r.mailing, {
      addr1: 'PO BOX 55',
      addr2: '',
      city: 'NAPLES',
      state: 'FL',
      zip: '34102-1234',
      zip5: '34102',
      zip4: '1234',
      country: 'US',
    });
    assert.equal(r.fileDate, '2023-09-22');
    assert.equal(r.fei, '12-3456789');
    assert.equal(r.moreThanSixOfficers, false);
    assert.equal(r.lastTransactionDate, '2023-09-29');
    assert.equal(r.stateOfFormation, 'FL');
    assert.deepEqual(r.annualReports, [
      { year: 2024, filedDate: '2024-01-15' },
      { year: 2025, filedDate: '2025-02-01' },
    ]);
    assert.deepEqual(r.agent, {
      name: {
        display: 'GARCIA, MARIA L JR',
        type: 'P',
        person: { last: 'GARCIA', first: 'MARIA', middle: 'L', suffix: 'JR' },
      },
      addr: '500 AGENT RD',
      city: 'TAMPA',
      state: 'FL',
      zip: '336021234',
      zip5: '33602',
    });
  });

  it('keeps officer slots with their slot number and splits person names', () => {
    const r = parseCorporate(fullRecord());
    assert.equal(r.officers.length, 2);
    assert.deepEqual(r.officers[0], {
      slot: 1,
      title: 'MGR',
      name: { display: 'SMITH, JOHN A', type: 'P', person: { last: 'SMITH', first: 'JOHN', middle: 'A', suffix: '' } },
    });
    assert.deepEqual(r.officers[1], {
      slot: 3,
      title: 'AMBR',
      name: { display: 'ACME MANAGEMENT CORPORATION', type: 'C', person: null },
    });
    // Officer addresses are never part of the parsed record.
    assert.ok(!JSON.stringify(r.officers).includes('SECRET'));
  });

  it('decodes UTF-8 and Windows-1252 per field, so later fields do not shift', () => {
    const utf8Name = Buffer.from('PEÑA CAFÉ LLC', 'utf8'); // 15 bytes for 13 characters
    const cp1252City = Buffer.from([0x4d, 0x49, 0x41, 0x4d, 0xc9]); // "MIAMÉ" in 1252
    const r = parseCorporate(
      fullRecord([
        [13, ' '.repeat(192)],
        [13, utf8Name],
        [305, ' '.repeat(28)],
        [305, cp1252City],
      ]),
    );
    assert.equal(r.name, 'PEÑA CAFÉ LLC');
    assert.equal(r.principal.city, 'MIAMÉ');
    assert.equal(r.status, 'A');
    assert.equal(r.filingType, 'FLAL');
  });

  it('reads a lone 0xA0 byte as Windows-1252 and a sequence cut at the field end as UTF-8', () => {
    const nbsp = Buffer.concat([Buffer.from('ACME'), Buffer.from([0xa0]), Buffer.from('TOOLS')]);
    // 41 bytes of text, then the first byte of a two-byte Ñ filling the 42-byte name field.
    const cut = Buffer.concat([Buffer.from('X'.repeat(41)), Buffer.from('Ñ', 'utf8').subarray(0, 1)]);
    const r = parseCorporate(
      fullRecord([
        [13, ' '.repeat(192)],
        [13, nbsp],
        [slot(3) + 5, cut],
      ]),
    );
    // Decoded as U+00A0, then read as the blank it is.
    assert.equal(r.name, 'ACME TOOLS');
    assert.equal(r.officers[1]!.name.display, 'X'.repeat(41));
  });

  it('treats blank and all-zero dates as none and blank principal state as blank', () => {
    const r = parseCorporate(
      fullRecord([
        [473, '00000000'],
        [496, '        '],
        [333, '  '],
        [506, '    '],
        [511, '        '],
      ]),
    );
    assert.equal(r.fileDate, null);
    assert.equal(r.lastTransactionDate, null);
    assert.equal(r.principal.state, '');
    assert.deepEqual(
      r.annualReports.map((a) => a.year),
      [2025],
    );
  });

  it('takes ZIP5 from messy ZIP fields', () => {
    for (const [zip, z5] of [
      ['33914 USA', '33914'],
      ['32771-808', '32771'],
      ['32771-8080', '32771'],
      ['3277', null],
    ] as const) {
      assert.equal(parseCorporate(fullRecord([[335, zip.padEnd(10)]])).principal.zip5, z5, zip);
    }
  });

  it('accepts a record without its 4 filler bytes and NUL filler', () => {
    assert.equal(parseCorporate(fullRecord().subarray(0, 1436)).documentNumber, 'L23000448570');
    assert.equal(
      parseCorporate(
        record(
          1440,
          [
            [1, 'P99000000001'],
            [13, 'X CORP'],
          ],
          0x00,
        ),
      ).name,
      'X CORP',
    );
  });

  for (const [what, line, reason] of [
    ['a truncated line', fullRecord().subarray(0, 900), /900 bytes/],
    ['a line one byte long', Buffer.concat([fullRecord(), Buffer.from(' ')]), /1441 bytes/],
    ['an impossible day', fullRecord([[473, '02302023']]), /file date: impossible date 02302023/],
    ['an impossible month', fullRecord([[496, '13012020']]), /last transaction date: impossible date/],
    ['a date that is not digits', fullRecord([[511, '01-02-20']]), /annual report 1 date: not a MMDDYYYY/],
    ['a non-numeric annual report year', fullRecord([[506, '20X4']]), /annual report 1 year/],
    ['a blank document number', fullRecord([[1, ' '.repeat(12)]]), /document number/],
  ] as const) {
    it(`rejects ${what}`, () => {
      assert.throws(
        () => parseCorporate(line),
        (err: unknown) => err instanceof MalformedRecord && reason.test(err.message),
      );
    });
  }
});

describe('parseEvent', () => {
  const event = (extra: Array<[number, string]> = []): Buffer =>
    record(662, [
      [1, 'L23000448570'],
      [13, '00003'],
      [18, 'CORLCRACHG'],
      [38, 'REG. AGENT CHANGE'],
      [78, '10012023'],
      [86, '10022023'],
      [94, 'NOTE ONE'],
      [129, 'NOTE TWO'],
      [199, 'M99000000001'],
      [211, 'SUNSHINE HOLDINGS, LLC'],
      ...extra,
    ]);

  it('reads every field', () => {
    assert.deepEqual(parseEvent(event()), {
      documentNumber: 'L23000448570',
      sequence: 3,
      code: 'CORLCRACHG',
      description: 'REG. AGENT CHANGE',
      effectiveDate: '2023-10-01',
      filedDate: '2023-10-02',
      notes: 'NOTE ONE NOTE TWO',
      mergerNumber: 'M99000000001',
      entityName: 'SUNSHINE HOLDINGS, LLC',
    });
  });

  it('rejects a wrong length, an impossible date and a non-numeric sequence', () => {
    assert.throws(() => parseEvent(event().subarray(0, 661)), MalformedRecord);
    assert.throws(() => parseEvent(event([[86, '02292023']])), /filed date: impossible date/);
    assert.doesNotThrow(() => parseEvent(event([[86, '02292024']])));
    assert.throws(() => parseEvent(event([[13, '0000X']])), /sequence/);
  });
});

describe('lineBatches', () => {
  async function* chunks(parts: Buffer[]): AsyncGenerator<Buffer> {
    yield* parts;
  }
  const collect = async (parts: Buffer[]): Promise<Array<[number, string]>> => {
    const out: Array<[number, string]> = [];
    for await (const batch of lineBatches(chunks(parts)))
      for (const l of batch) out.push([l.number, l.bytes.toString()]);
    return out;
  };

  it('splits LF and CR LF lines across chunk boundaries and numbers them', async () => {
    assert.deepEqual(await collect([Buffer.from('ab\r\ncd'), Buffer.from('e\nfg\r'), Buffer.from('\n\nhi')]), [
      [1, 'ab'],
      [2, 'cde'],
      [3, 'fg'],
      [5, 'hi'],
    ]);
  });

  it('ignores a final DOS end-of-file mark', async () => {
    assert.deepEqual(await collect([Buffer.from('ab\n\x1a')]), [[1, 'ab']]);
  });
});
