// Code tables: event codes to normalized filing types and refined (inactive) statuses.

export type FilingType =
  | 'FORMATION'
  | 'AMENDMENT'
  | 'NAME_CHANGE'
  | 'REINSTATEMENT'
  | 'MERGER'
  | 'CONVERSION'
  | 'DISSOLUTION'
  | 'REVOCATION'
  | 'WITHDRAWAL'
  | 'AGENT_CHANGE'
  | 'ANNUAL_REPORT'
  | 'OTHER';

/** A refined status letter (docs/contract.md, "Responses") and its label, for entities made inactive by an event. */
export interface Inactivation {
  readonly letter: 'd' | 'r' | 'w' | 'm' | 'x';
  readonly label: string;
}

interface EventCode {
  readonly filingType: FilingType;
  readonly inactivation?: Inactivation;
}

const dissolved = (label: string): Inactivation => ({ letter: 'd', label });
const revoked = (label: string): Inactivation => ({ letter: 'r', label });

const EVENT_CODES: Readonly<Record<string, EventCode>> = {
  CORAPAMND: { filingType: 'AMENDMENT' },
  CORLCAMND: { filingType: 'AMENDMENT' },
  CORAPRSTAR: { filingType: 'AMENDMENT' },
  CORAPARTCR: { filingType: 'AMENDMENT' },
  CORAPAMDNC: { filingType: 'NAME_CHANGE' },
  CORAPNC: { filingType: 'NAME_CHANGE' },
  CORLCNC: { filingType: 'NAME_CHANGE' },
  CORLCAMDNC: { filingType: 'NAME_CHANGE' },
  CORAPREIN: { filingType: 'REINSTATEMENT' },
  CORAPMER: { filingType: 'MERGER', inactivation: { letter: 'm', label: 'Merged' } },
  CORAPCMER: { filingType: 'MERGER', inactivation: { letter: 'm', label: 'Merged' } },
  CORAPCONV: { filingType: 'CONVERSION', inactivation: { letter: 'm', label: 'Converted' } },
  CORAPVOLDS: { filingType: 'DISSOLUTION', inactivation: dissolved('Voluntarily Dissolved') },
  CORAMADDIS: { filingType: 'DISSOLUTION', inactivation: dissolved('Administratively Dissolved') },
  CORAMADMAR: { filingType: 'DISSOLUTION', inactivation: dissolved('Administratively Dissolved for Annual Report') },
  CORAMINVOL: { filingType: 'DISSOLUTION', inactivation: dissolved('Involuntarily Dissolved') },
  CORAMDCO: { filingType: 'DISSOLUTION', inactivation: dissolved('Dissolved by Court Order') },
  CORAMADREV: { filingType: 'REVOCATION', inactivation: revoked('Administratively Revoked') },
  CORAMREV: { filingType: 'REVOCATION', inactivation: revoked('Revoked') },
  CORAPWITH: { filingType: 'WITHDRAWAL', inactivation: { letter: 'w', label: 'Withdrawn' } },
  CORAMEXP: { filingType: 'OTHER', inactivation: { letter: 'x', label: 'Expired' } },
  CORLCRACHG: { filingType: 'AGENT_CHANGE' },
  CORAPRACHG: { filingType: 'AGENT_CHANGE' },
  CORAPANRPT: { filingType: 'ANNUAL_REPORT' },
  CORLCANRPT: { filingType: 'ANNUAL_REPORT' },
};

/** Every event code this service knows by name (the generator draws from these). */
export const KNOWN_EVENT_CODES: readonly string[] = Object.keys(EVENT_CODES);

/**
 * The normalized filing type of an event code. Unknown codes are classified by the words the registry
 * uses inside them (for instance `...ANRPT` annual report, `...RACHG` agent change), else `OTHER`.
 */
export function filingTypeOf(code: string): FilingType {
  const known = EVENT_CODES[code];
  if (known) return known.filingType;
  if (/ANRPT|ANNUAL/.test(code)) return 'ANNUAL_REPORT';
  if (/RACHG|REGAG/.test(code)) return 'AGENT_CHANGE';
  if (/AMDNC|NC$/.test(code)) return 'NAME_CHANGE';
  if (/AMND/.test(code)) return 'AMENDMENT';
  if (/REIN/.test(code)) return 'REINSTATEMENT';
  if (/MER/.test(code)) return 'MERGER';
  if (/CONV/.test(code)) return 'CONVERSION';
  if (/DIS|VOLDS/.test(code)) return 'DISSOLUTION';
  if (/REV/.test(code)) return 'REVOCATION';
  if (/WITH/.test(code)) return 'WITHDRAWAL';
  return 'OTHER';
}

/** The inactivation an event code causes, if any. */
export function inactivationOf(code: string): Inactivation | undefined {
  return EVENT_CODES[code]?.inactivation;
}
