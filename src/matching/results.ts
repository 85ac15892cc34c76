// A job's results as a file, streamed a page of rows at a time (docs/matching.md, "Results"): each input row with its
// best candidate, score, verdict and grades, as CSV or JSON lines, in the order of the file.
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type pg from 'pg';
import { MATCH_FIELDS } from './jobs.js';

/** Rows read a statement: a small page in memory, few round trips. */
const PAGE_ROWS = 5_000;

const GRADED = ['name', 'legal_form', 'address', 'city', 'zip', 'officer'] as const;
const CANDIDATE = [
  'document_number',
  'entity_name',
  'status',
  'entity_type',
  'principal_city',
  'principal_zip',
] as const;

/** The CSV's columns: the row, its fields, the verdict, the candidate (named apart from the row's own document
 * number and type), its score and grades. */
const RESULT_COLUMNS = [
  'row',
  ...MATCH_FIELDS,
  'match',
  ...CANDIDATE.map((f) => `candidate_${f}`),
  'score',
  ...GRADED.map((f) => `grade_${f}`),
  'error',
] as const;

interface Stored {
  row_no: number;
  input: Record<string, string>;
  result: {
    match: boolean;
    candidate: (Record<string, unknown> & { grades: Record<string, string> }) | null;
    /** `query_timeout`: the row's search was stopped by the statement timeout (not charged). */
    error?: string;
  } | null;
}

function csvLine(r: Stored): string {
  const c = r.result?.candidate ?? null;
  const cells = [
    r.row_no,
    ...MATCH_FIELDS.map((f) => r.input[f] ?? ''),
    r.result === null ? '' : String(r.result.match),
    ...CANDIDATE.map((f) => (c ? String(c[f] ?? '') : '')),
    c ? String(c.score) : '',
    ...GRADED.map((f) => c?.grades[f] ?? ''),
    r.result?.error ?? '',
  ];
  return stringify([cells]);
}

/** JSON lines: the row, its input and its result (null for a row not matched before the job ended). */
const jsonLine = (r: Stored): string => `${JSON.stringify({ row: r.row_no, input: r.input, result: r.result })}\n`;

/** The job's rows as a stream of CSV (with a header) or JSON lines. */
export function resultStream(pool: pg.Pool, job: string, format: 'csv' | 'jsonl'): Readable {
  async function* lines(): AsyncGenerator<string> {
    if (format === 'csv') yield stringify([[...RESULT_COLUMNS]]);
    let after = 0;
    for (;;) {
      const { rows } = await pool.query<Stored>(
        'SELECT row_no, input, result FROM match_job_rows WHERE job_id = $1 AND row_no > $2 ORDER BY row_no LIMIT $3',
        [job, after, PAGE_ROWS],
      );
      if (rows.length === 0) return;
      yield rows.map(format === 'csv' ? csvLine : jsonLine).join('');
      after = rows[rows.length - 1]!.row_no;
    }
  }
  return Readable.from(lines());
}
