// Each entity's last inactivating event (registry.inactivations), from the events.
import type pg from 'pg';
import { KNOWN_EVENT_CODES, inactivationOf } from '../../codes.js';
import type { Derivation, Schema } from './derivation.js';

/** Inactivating event codes with their letters and labels, as query parameters. */
function inactivationParams(): [string[], string[], string[]] {
  const rows = KNOWN_EVENT_CODES.flatMap((code) => {
    const i = inactivationOf(code);
    return i ? [[code, i.letter, i.label] as const] : [];
  });
  return [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])];
}

function inactivationsSql(s: Schema, where: string): string {
  return `
    INSERT INTO ${s}.inactivations (document_number, letter, label, code, filed_date)
    SELECT DISTINCT ON (ev.document_number) ev.document_number, c.letter, c.label, ev.code, ev.filed_date
    FROM ${s}.events ev
    JOIN unnest($1::text[], $2::text[], $3::text[]) AS c(code, letter, label) ON c.code = ev.code
    WHERE true ${where}
    ORDER BY ev.document_number, ev.filed_date DESC NULLS LAST, ev.sequence DESC`;
}

/** The event-derived tables of a freshly loaded schema. */
export function eventDerivations(s: Schema): Derivation[] {
  return [
    {
      table: 'inactivations',
      after: [],
      reads: 'events',
      build: (c) => c.query(inactivationsSql(s, ''), inactivationParams()),
    },
  ];
}

/** Recomputes the inactivation of every entity with a row in `chg_events`. */
export async function refreshEventDerived(client: pg.PoolClient, s: Schema): Promise<void> {
  await client.query(
    `DELETE FROM ${s}.inactivations WHERE document_number IN (SELECT document_number FROM chg_events)`,
  );
  await client.query(
    inactivationsSql(s, `AND ev.document_number IN (SELECT document_number FROM chg_events)`),
    inactivationParams(),
  );
}
