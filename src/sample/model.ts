// The generator's in-memory shape of one registry record and its events, before encoding to bytes.
import type { PersonName } from './names.js';
import type { Text } from './text.js';

export interface Address {
  readonly addr1: Text;
  readonly addr2: Text;
  readonly city: Text;
  readonly state: string;
  readonly zip: string;
  readonly country: string;
}

/** A person (name type `P`, or blank in a few officer slots) or a company (type `C`). */
export interface Party {
  /** An officer's title; blank for the registered agent. */
  readonly title: string;
  readonly nameType: 'P' | 'C' | '';
  readonly name: PersonName | Text;
  readonly addr: Text;
  readonly city: Text;
  readonly state: string;
  readonly zip: string;
}

export type Officer = Party;

export interface AnnualReport {
  readonly year: number;
  readonly date: number;
}

/** A date field: a day number, or one of the two spellings of "none". */
export type DateField = number | '' | '00000000';

export interface EntityEvent {
  readonly code: string;
  readonly filed: number;
  readonly effective: DateField;
  readonly notes: readonly Text[];
  readonly mergerNumber: string;
  readonly nameChange: boolean;
}

export interface Entity {
  readonly documentNumber: string;
  readonly name: Text;
  readonly status: 'A' | 'I';
  readonly type: string;
  readonly principal: Address;
  readonly mailing: Address;
  readonly fileDate: number;
  readonly fei: string;
  readonly moreThanSixOfficers: boolean;
  readonly lastTransaction: number;
  readonly stateOfFormation: string;
  /** Most recent first, at most three. */
  readonly annualReports: readonly AnnualReport[];
  readonly agent: Party;
  readonly officers: readonly Officer[];
  /** Filing history, oldest first; an inactive entity's inactivating event is last. */
  readonly history: readonly EntityEvent[];
}

/** What every record derivation needs to know about the dataset. */
export interface DatasetContext {
  readonly seed: number;
  /** The quarterly snapshot's date (a day number). */
  readonly snapshotDay: number;
  /** Entities in the snapshot: indices 0 .. entities - 1; daily formations continue from there. */
  readonly entities: number;
}

export function isPerson(name: PersonName | Text): name is PersonName {
  return typeof name === 'object' && !(name instanceof Uint8Array);
}
