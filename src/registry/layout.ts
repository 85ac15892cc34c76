// Fixed-width layouts of the registry's bulk files (docs/bulk-files.md).
// Offsets here are 0-based byte offsets; the spec's tables are 1-based.

export interface Field {
  readonly start: number;
  readonly len: number;
}

const f = (start1: number, len: number): Field => ({ start: start1 - 1, len });

export const CORPORATE_RECORD_BYTES = 1440;
/** The last 4 bytes of a corporate record are filler; a line without them is still whole. */
export const CORPORATE_MIN_BYTES = 1436;

export const corporate = {
  documentNumber: f(1, 12),
  name: f(13, 192),
  status: f(205, 1),
  filingType: f(206, 15),
  principal: {
    addr1: f(221, 42),
    addr2: f(263, 42),
    city: f(305, 28),
    state: f(333, 2),
    zip: f(335, 10),
    country: f(345, 2),
  },
  mailing: {
    addr1: f(347, 42),
    addr2: f(389, 42),
    city: f(431, 28),
    state: f(459, 2),
    zip: f(461, 10),
    country: f(471, 2),
  },
  fileDate: f(473, 8),
  fei: f(481, 14),
  moreThanSixOfficers: f(495, 1),
  lastTransactionDate: f(496, 8),
  stateOfFormation: f(504, 2),
  annualReports: [
    { year: f(506, 4), date: f(511, 8) },
    { year: f(519, 4), date: f(524, 8) },
    { year: f(532, 4), date: f(537, 8) },
  ],
  agent: {
    name: f(545, 42),
    nameType: f(587, 1),
    addr: f(588, 42),
    city: f(630, 28),
    state: f(658, 2),
    zip: f(660, 9),
  },
  filler: f(1437, 4),
} as const;

export const OFFICER_SLOTS = 6;
const OFFICER_SLOT_BYTES = 128;
export const officerSlotStart = (slot: number): number => 669 - 1 + OFFICER_SLOT_BYTES * (slot - 1);

/** Offsets inside an officer slot, relative to the slot's first byte. */
export const officer = {
  title: { start: 0, len: 4 },
  nameType: { start: 4, len: 1 },
  name: { start: 5, len: 42 },
  addr: { start: 47, len: 42 },
  city: { start: 89, len: 28 },
  state: { start: 117, len: 2 },
  zip: { start: 119, len: 9 },
} as const;

/** Sub-columns of a 42-byte person name (name type `P`), relative to the name field. */
export const personName = {
  last: { start: 0, len: 20 },
  first: { start: 20, len: 14 },
  middle: { start: 34, len: 1 },
  suffix: { start: 35, len: 7 },
} as const;

export const EVENT_RECORD_BYTES = 662;

export const event = {
  documentNumber: f(1, 12),
  sequence: f(13, 5),
  code: f(18, 20),
  description: f(38, 40),
  effectiveDate: f(78, 8),
  filedDate: f(86, 8),
  notes: [f(94, 35), f(129, 35), f(164, 35)],
  mergerNumber: f(199, 12),
  entityName: f(211, 192),
  nameSequence: f(403, 5),
  crossNameSequence: f(408, 5),
  nameChangeFlag: f(413, 1),
  crossNameChangeFlag: f(414, 1),
  address: { addr1: f(415, 42), addr2: f(457, 42), city: f(499, 28), state: f(527, 2), zip: f(529, 10) },
  mailing: { addr1: f(539, 42), addr2: f(581, 42), city: f(623, 28), state: f(651, 2), zip: f(653, 10) },
} as const;

/** Entity (filing) type codes and their labels. */
export const ENTITY_TYPES: Readonly<Record<string, string>> = {
  DOMP: 'Domestic For-Profit Corporation',
  DOMNP: 'Domestic Non-Profit Corporation',
  FORP: 'Foreign For-Profit Corporation',
  FORNP: 'Foreign Non-Profit Corporation',
  FLAL: 'Florida Limited Liability Company',
  FORL: 'Foreign Limited Liability Company',
  DOMLP: 'Domestic Limited Partnership',
  FORLP: 'Foreign Limited Partnership',
  NPREG: 'Non-Profit (Regulated)',
  TRUST: 'Declaration of Trust',
  AGENT: 'Registered Agent Designation',
};

/** First letter of a document number by entity type (the rest have none fixed). */
export const DOCUMENT_PREFIX: Readonly<Record<string, string>> = {
  FLAL: 'L',
  DOMP: 'P',
  DOMNP: 'N',
  FORL: 'M',
  FORP: 'F',
  DOMLP: 'A',
  FORLP: 'B',
};

/** Daily file names: `YYYYMMDDc.txt` (corporate) and `YYYYMMDDce.txt` (events). */
export const DAILY_CORPORATE_FILE = /^(\d{4})(\d{2})(\d{2})c\.txt$/i;
export const DAILY_EVENT_FILE = /^(\d{4})(\d{2})(\d{2})ce\.txt$/i;
export const QUARTERLY_CORPORATE_ZIP = /^cordata\.zip$/i;
export const QUARTERLY_EVENT_ZIP = /^corevent\.zip$/i;
export const QUARTERLY_CORPORATE_MEMBER = /^cordata\d*\.txt$/i;
export const QUARTERLY_EVENT_MEMBER = /^corevent\d*\.txt$/i;
