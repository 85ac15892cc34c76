// When a file's malformed lines mean the file itself is broken. The importer skips a malformed
// line and goes on (real files have a few misaligned rows); the refresh refuses, and rolls back
// whole, a file where every line is malformed or where they are many: a cut, misaligned or
// wrong file, which must not be half-applied.
import type { ReadStats } from '../import/read.js';

/** Malformed lines a file may have whatever its length (one generated day plants 4). */
const REJECTS_TOLERATED = 10;
/** Beyond that, the share of a file's lines that may be malformed. */
const REJECT_SHARE_TOLERATED = 0.01;

export function tooManyRejects(stats: ReadStats): string | null {
  const first = stats.rejects[0];
  const example = first ? ` (first: line ${first.line}, ${first.reason})` : '';
  if (stats.read > 0 && stats.rejected === stats.read)
    return `every one of its ${stats.read} lines is malformed${example}`;
  if (stats.rejected > REJECTS_TOLERATED && stats.rejected > stats.read * REJECT_SHARE_TOLERATED) {
    return (
      `${stats.rejected} of its ${stats.read} lines are malformed, ` +
      `more than ${REJECTS_TOLERATED} and more than ${REJECT_SHARE_TOLERATED * 100}%${example}`
    );
  }
  return null;
}
