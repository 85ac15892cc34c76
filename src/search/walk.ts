// A list read by cursor (docs/contract.md, "Cursors"): each page after the first carries where the walk is, and
// the walk is pinned to the dataset version of its first page.
import type pg from 'pg';
import type { Keys } from './keyset.js';
import type { Page } from './paging.js';
import { datasetVersions, type Versions } from './pinned.js';

/** Where a walk is, as its cursor carries it. */
export interface Walk {
  /** The dataset version of its first page. */
  readonly version: number;
  /** The exact total of its first page. */
  readonly total: number;
  /** The keys of the last row read, for a list read by keys; null for one read by position (relevance). */
  readonly after: Keys | null;
}

/** A page of a walk: its rows, the total, the version it is pinned to, and the keys of its last row. */
export interface WalkPage<T> extends Page<T> {
  version: number;
  last: Keys | null;
}

/** A cursor pinned to a version no longer kept (a full load since, or older than the kept history). */
export class WalkExpired extends Error {
  constructor(
    readonly version: number,
    readonly oldest: number,
  ) {
    super(`dataset version ${version} is no longer kept (the oldest a cursor can read is ${oldest})`);
    this.name = 'WalkExpired';
  }
}

/** The dataset's versions, refusing a walk pinned before the oldest still kept. */
export async function walkVersions(pool: pg.Pool, walk: Walk): Promise<Versions> {
  const now = await datasetVersions(pool);
  if (walk.version < now.pinnedFrom) throw new WalkExpired(walk.version, now.pinnedFrom);
  return now;
}

/**
 * A walk's first page, read at one version: when an import commits while it is read, it is read again, so the
 * version its cursor pins is the one its rows came from.
 */
export async function firstPage<P extends Page<unknown>>(
  pool: pg.Pool,
  read: () => Promise<P>,
): Promise<P & { version: number }> {
  for (let tries = 1; ; tries++) {
    const before = await datasetVersions(pool);
    const page = await read();
    const after = await datasetVersions(pool);
    // Imports commit a day apart: a second read meets one only if the first was longer than the import.
    if (after.version === before.version || tries === FIRST_PAGE_TRIES) return { ...page, version: after.version };
  }
}

/** Reads of a first page before its version is taken as it is (see firstPage). */
const FIRST_PAGE_TRIES = 3;
