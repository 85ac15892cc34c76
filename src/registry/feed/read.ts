// Reading the change feed (docs/contract.md, "Change feed"): the changes after a position, in number order, with
// filters; where a walk starts (the oldest change kept, or the first imported from an instant); and the count of
// what a walk holds. A position is a change's number: "after N" reads from N + 1.
import type pg from 'pg';

/** The kinds of change, in the order the contract describes them. */
export const CHANGE_KINDS = ['created', 'updated', 'status_changed', 'removed', 'filing'] as const;
type ChangeKind = (typeof CHANGE_KINDS)[number];

/** What a reader keeps of the feed; each filter, when given, is one of its values. */
export interface ChangeFilters {
  readonly kind?: readonly ChangeKind[] | undefined;
  readonly entity_type?: readonly string[] | undefined;
  readonly county?: readonly string[] | undefined;
}

interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** A change as the API answers it. */
export interface ChangeRow {
  sequence: number;
  kind: ChangeKind;
  document_number: string;
  entity_type: string | null;
  county: string | null;
  file: string;
  file_date: string;
  dataset_version: number;
  imported_at: string;
  changes: FieldChange[];
}

/** A page of changes: `more` when more match after it; `scanned`, the position every change up to was read. */
export interface ChangePage {
  readonly rows: ChangeRow[];
  readonly more: boolean;
  readonly scanned: number;
}

/** A position before what the purge took: reading on from it would skip the changes deleted. */
export class PositionExpired extends Error {
  constructor(
    readonly purgedThrough: number,
    readonly purgedUntil: string | null,
  ) {
    super(`the changes up to ${purgedThrough} are no longer kept`);
    this.name = 'PositionExpired';
  }
}

const FILTERS = `($2::text[] IS NULL OR c.kind = ANY($2)) AND ($3::text[] IS NULL OR c.entity_type = ANY($3))
  AND ($4::text[] IS NULL OR c.county = ANY($4))`;

const filterValues = (f: ChangeFilters): unknown[] => [f.kind ?? null, f.entity_type ?? null, f.county ?? null];

interface Row extends Omit<ChangeRow, 'sequence' | 'dataset_version' | 'changes'> {
  sequence: string;
  dataset_version: string;
  changes: FieldChange[];
}

interface StateRow {
  newest: string;
  purged_through: string;
  purged_until: Date | null;
}

export class ChangeFeed {
  constructor(private readonly pool: pg.Pool) {}

  /** Up to `limit` changes after `position` that match, in number order (one statement: one snapshot). */
  async after(position: number, filters: ChangeFilters, limit: number): Promise<ChangePage> {
    const { rows } = await this.pool.query<StateRow & Partial<Row>>(
      `SELECT s.last_sequence AS newest, s.purged_through, s.purged_until, c.*
       FROM registry.change_state s
       LEFT JOIN LATERAL (
         SELECT c.sequence, c.kind, c.document_number, c.entity_type, c.county, f.file, f.file_date::text,
                f.dataset_version, c.changes,
                to_char(f.imported_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS imported_at
         FROM registry.changes c JOIN registry.change_files f ON f.id = c.file_id
         WHERE c.sequence > $1 AND ${FILTERS}
         ORDER BY c.sequence LIMIT $5) c ON true`,
      [position, ...filterValues(filters), limit + 1],
    );
    const state = rows[0]!;
    refuseExpired(position, state);
    const found = rows.filter((r) => r.sequence !== null && r.sequence !== undefined) as Array<StateRow & Row>;
    const more = found.length > limit;
    const page = found.slice(0, limit).map(shown);
    // Every change up to the newest was read when none is left after the page (they commit in number order).
    const last = page.at(-1)?.sequence ?? position;
    return { rows: page, more, scanned: more ? last : Math.max(last, Number(state.newest)) };
  }

  /** How many changes after `position` match (a walk's total, counted on its first page). */
  async count(position: number, filters: ChangeFilters): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM registry.changes c WHERE c.sequence > $1 AND ${FILTERS}`,
      [position, ...filterValues(filters)],
    );
    return Number(rows[0]!.n);
  }

  /**
   * Where a walk starts: after `after` (refused when the purge took changes after it), or just before the first
   * change imported at or after `since`, or else before the oldest change kept. `newest` starts at the newest.
   */
  async start(from: { after?: number | undefined; since?: Date | undefined; newest?: boolean }): Promise<number> {
    const { rows } = await this.pool.query<StateRow & { at_since: string | null }>(
      `SELECT s.last_sequence AS newest, s.purged_through, s.purged_until,
              (SELECT f.first_sequence - 1 FROM registry.change_files f WHERE f.imported_at >= $1
               ORDER BY f.imported_at, f.first_sequence LIMIT 1) AS at_since
       FROM registry.change_state s`,
      [from.since ?? null],
    );
    const state = rows[0]!;
    if (from.after !== undefined) {
      refuseExpired(from.after, state);
      return from.after;
    }
    if (from.since) {
      if (state.purged_until !== null && from.since <= state.purged_until) throw expired(state);
      return state.at_since === null ? Number(state.newest) : Number(state.at_since);
    }
    return Number(from.newest ? state.newest : state.purged_through);
  }

  /** The newest change's number. */
  async newest(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT last_sequence AS n FROM registry.change_state');
    return Number(rows[0]!.n);
  }
}

const expired = (state: StateRow): PositionExpired =>
  new PositionExpired(Number(state.purged_through), state.purged_until?.toISOString() ?? null);

function refuseExpired(position: number, state: StateRow): void {
  if (position < Number(state.purged_through)) throw expired(state);
}

/** A row as answered: numbers as numbers, each change's keys in the order field, before, after. */
const shown = (r: Row): ChangeRow => ({
  sequence: Number(r.sequence),
  kind: r.kind,
  document_number: r.document_number,
  entity_type: r.entity_type,
  county: r.county,
  file: r.file,
  file_date: r.file_date,
  dataset_version: Number(r.dataset_version),
  imported_at: r.imported_at,
  changes: r.changes.map((c) => ({ field: c.field, before: c.before, after: c.after })),
});
