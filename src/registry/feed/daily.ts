// The changes of a daily file (docs/contract.md, "Change feed"): a corporate file's, once applied, against the rows
// it replaced (`old_entities`, `old_officers`, which the importer keeps for the file's transaction: nothing is read
// from the registry's tables); an events file's, before it is applied, against the registry's filings.
import type pg from 'pg';
import { fieldChanges, filingJson, officerLists } from './fields.js';
import { writeChanges, type ChangedFile } from './write.js';

/**
 * After `applyCorporateChanges`: `chg_entities` and `chg_officers` hold the records the file wrote (the stale and
 * repeated ones are gone), `old_entities` and `old_officers` the rows they replaced.
 */
export const logCorporateChanges = (client: pg.PoolClient, file: ChangedFile): Promise<number> =>
  writeChanges(
    client,
    `SELECT c.document_number, 0 AS ord, c.entity_type, c.principal_zip5 AS zip5,
            o.document_number IS NOT NULL AS was, true AS is,
            ${fieldChanges('o', 'c', 'oo.officers', 'co.officers')} AS fields
     FROM chg_entities c
     LEFT JOIN old_entities o ON o.document_number = c.document_number
     LEFT JOIN ${officerLists('chg_officers')} co ON co.document_number = c.document_number
     LEFT JOIN ${officerLists('old_officers')} oo ON oo.document_number = c.document_number`,
    'entity',
    file,
  );

/**
 * Before `applyEventChanges`: the filings of `chg_events` (the last line of a repeated key) that the registry does
 * not hold, or holds otherwise from a record no newer (a newer one stays: applyEventChanges keeps it).
 */
export const logFilingChanges = (client: pg.PoolClient, file: ChangedFile): Promise<number> =>
  writeChanges(
    client,
    `SELECT i.document_number, i.sequence AS ord, n.entity_type, n.principal_zip5 AS zip5,
            ${filingJson('e')} AS before, ${filingJson('i')} AS after
     FROM (SELECT DISTINCT ON (document_number, sequence) * FROM chg_events
           ORDER BY document_number, sequence, ord DESC) i
     LEFT JOIN registry.events e ON e.document_number = i.document_number AND e.sequence = i.sequence
     LEFT JOIN registry.entities n ON n.document_number = i.document_number
     WHERE e.document_number IS NULL
        OR (e.source_date <= i.source_date AND ${filingJson('e')} IS DISTINCT FROM ${filingJson('i')})`,
    'filing',
    file,
  );
