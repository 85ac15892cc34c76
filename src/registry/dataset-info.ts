// The dataset's state as requests read it (re-read at most every few seconds: it only changes when an
// import lands), and the report of it that `/v1/status` answers and the web app's pages show.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import {
  datasetState,
  datasetStatus,
  staleSince,
  type AppliedFile,
  type DatasetState,
  type DatasetStatus,
} from './dataset.js';

/** How long a read of the dataset's state serves requests before it is read again. */
const STATE_TTL_MS = 5000;

export class DatasetInfo {
  private cached: { at: number; state: DatasetState } | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
  ) {}

  async state(): Promise<DatasetState> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > STATE_TTL_MS)
      this.cached = { at: now, state: await datasetState(this.pool) };
    return this.cached.state;
  }

  async status(): Promise<DatasetStatus> {
    return datasetStatus((await this.state()).refreshed_at, this.clock.now());
  }

  /** The dataset's report (docs/contract.md, "Operations": the status route). */
  async report(): Promise<DatasetReport> {
    const state = await this.state();
    const now = this.clock.now();
    return {
      dataset_status: datasetStatus(state.refreshed_at, now),
      stale_since: staleSince(state.refreshed_at, now),
      last_refresh_at: state.refreshed_at,
      files_applied: state.last_refresh_files,
      last_import_at: state.last_import_at,
      snapshot_date: state.snapshot_date,
      newest_file_date: state.newest_file_date,
      newest_filing_date: state.newest_filing_date,
      counts: { entities: state.entities, officers: state.officers, events: state.events, agents: state.agents },
      dataset_version: state.version,
    };
  }

  /** Forget the cached state (after an import in this process). */
  invalidate(): void {
    this.cached = null;
  }
}

export interface DatasetReport {
  dataset_status: DatasetStatus;
  stale_since: string | null;
  last_refresh_at: string | null;
  files_applied: AppliedFile[];
  last_import_at: string | null;
  snapshot_date: string | null;
  newest_file_date: string | null;
  newest_filing_date: string | null;
  counts: { entities: number | null; officers: number | null; events: number | null; agents: number | null };
  dataset_version: number;
}
