// What the importer tells an observer of its changes (monitoring, wired in by the composition root,
// src/main/importer.ts): each change inside its own transaction, so that what the observer writes commits
// or rolls back with the change it reports. The importer knows nothing of what the observer does.
import type pg from 'pg';

/** What an observer did with one file: the records it wrote and, when it judged entities, how many. */
export interface Observed {
  readonly written: number;
  readonly judged?: number;
}

/** An observation begun before a snapshot's swap (on the live tables) and finished after it. */
export interface SwapObservation {
  /** Once the staged tables are live, in the swap's transaction: the records written. */
  after(client: pg.PoolClient, file: string): Promise<number>;
}

/** Logs a step of a snapshot's load with its time. */
export type Step = (what: string) => void;

export interface ImportObserver {
  /** Named in the import's log lines. */
  readonly name: string;
  /**
   * A daily corporate file just applied: `chg_entities` and `chg_officers` hold its records, `old_entities`
   * and `old_officers` the rows they replaced (src/registry/import/derived.ts). Null: nothing observed.
   */
  corporateApplied(client: pg.PoolClient, file: string): Promise<Observed | null>;
  /** A daily events file read, not yet applied: `chg_events` holds its records. */
  eventsRead(client: pg.PoolClient, file: string): Promise<Observed | null>;
  /** A quarterly snapshot staged in the schema `staged`, before its swap; null when nothing is observed. */
  snapshotStaged(
    client: pg.PoolClient,
    kind: 'corporate' | 'events',
    staged: string,
    step: Step,
  ): Promise<SwapObservation | null>;
}
