// A small crafted registry, loaded through the real importer, for the operations' tests: names
// chosen to exercise ranking tiers and tiebreaks, filters, person names, addresses and filings.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { importRegistry } from '../../src/main/importer.js';
import { corporate, event, fileOf, person, type Corp, type Ev } from './records.js';

const CSC = 'CORPORATION SERVICE COMPANY';

const ENTITIES: Corp[] = [
  {
    doc: 'L20000000001',
    name: 'ACME HOLDINGS LLC',
    fileDate: '01152020',
    city: 'MIAMI',
    zip: '33101',
    street: '100 MAIN ST',
    agent: CSC,
    officers: [{ title: 'MGR', name: person('SMITH', 'JOHN', 'A') }],
  },
  {
    doc: 'P21000000002',
    name: 'ACME HOLDINGS, INC.',
    type: 'DOMP',
    fileDate: '06012021',
    city: 'TAMPA',
    zip: '33602',
    street: '200 BAY ST',
    agent: person('GARCIA', 'MARIA', 'L'),
    agentType: 'P',
    officers: [
      { title: 'P', name: person('GARCIA', 'MARIA', 'L') },
      { title: 'D', name: person("O'BRIEN", 'SEAN') },
    ],
  },
  {
    doc: 'L22000000003',
    name: 'ACME HOLDINGS GROUP LLC',
    status: 'I',
    fileDate: '03032022',
    city: 'MIAMI',
    zip: '33101',
    street: '100 MAIN STREET',
    agent: CSC,
  },
  {
    doc: 'L19000000004',
    name: 'THE ACME HOLDINGS TRUST LLC',
    fileDate: '02022019',
    city: 'ORLANDO',
    zip: '32801',
    agent: CSC,
  },
  {
    doc: 'L23000000005',
    name: 'BEST ACME HOLDINGS LLC',
    fileDate: '07072023',
    city: 'MIAMI',
    zip: '33101-1234',
    street: '5 OCEAN DR',
  },
  { doc: 'L23000000006', name: 'ACMEE HOLDING LLC', fileDate: '08082023', city: 'JACKSONVILLE', zip: '32202' },
  {
    doc: 'L23000000007',
    name: "O'BRIEN & SONS, L.L.C.",
    fileDate: '09092023',
    city: 'NAPLES',
    zip: '34102',
    officers: [{ title: 'AMBR', name: person('SMITH', 'JOHN', 'A') }],
  },
  {
    doc: 'N18000000008',
    name: 'SUNSHINE FOUNDATION, INC.',
    type: 'DOMNP',
    status: 'I',
    fileDate: '01012018',
    city: 'TALLAHASSEE',
    zip: '32301',
  },
  { doc: 'L23000000009', name: 'TWIN PEAKS LLC', fileDate: '05052023', city: 'TAMPA', zip: '33602' },
  { doc: 'L23000000010', name: 'TWIN PEAKS LLC', fileDate: '05052023', city: 'TAMPA', zip: '33602' },
  {
    doc: 'F20000000011',
    name: 'GLOBAL WIDGETS CORPORATION',
    type: 'FORP',
    fileDate: '04042020',
    city: 'ATLANTA',
    zip: '30301',
  },
  {
    doc: 'L26000000012',
    name: 'NEW VENTURE LLC',
    fileDate: '03052026',
    city: 'ORLANDO',
    zip: '32801',
    agent: CSC,
    officers: [{ title: 'MGR', name: person('NGUYEN', 'LINH') }],
  },
  { doc: 'P26000000013', name: 'FRESH START INC', type: 'DOMP', fileDate: '03062026', city: 'MIAMI', zip: '33130' },
];

/** 55 events for the first entity (more than the 50 the detail shows), a dissolution, recent filings. */
const EVENTS: Ev[] = [
  ...Array.from({ length: 55 }, (_, i): Ev => ({
    doc: 'L20000000001',
    seq: i + 1,
    code: 'CORLCAMND',
    filed: `01${String((i % 28) + 1).padStart(2, '0')}${2021 + Math.floor(i / 28)}`,
  })),
  { doc: 'N18000000008', seq: 1, code: 'CORAMADMAR', filed: '09272019' },
  { doc: 'P21000000002', seq: 1, code: 'CORAPNC', filed: '03052026' },
  { doc: 'L23000000005', seq: 1, code: 'CORLCRACHG', filed: '03082026' },
];

/** Imports the fixture as one daily corporate file and one daily event file dated 2026-03-09. */
export async function loadFixture(pool: pg.Pool): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rl-fixture-'));
  try {
    await writeFile(path.join(dir, '20260309c.txt'), fileOf(ENTITIES.map(corporate)));
    await writeFile(path.join(dir, '20260309ce.txt'), fileOf(EVENTS.map(event)));
    const summary = await importRegistry(pool, [dir]);
    if (summary.totals.records_rejected !== 0) throw new Error(`fixture rejected: ${JSON.stringify(summary.files)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
