// A place the registry's files are fetched from: the registry's SFTP server or a local directory
// (an operator's own sync), both laid out as the server is (docs/bulk-files.md).
import type { FileKind } from '../import/sources.js';
import { DAILY_CORPORATE_FILE, DAILY_EVENT_FILE, QUARTERLY_CORPORATE_ZIP, QUARTERLY_EVENT_ZIP } from '../layout.js';

/**
 * Where each kind of file lives under the source's root: daily corporate files in `cor/`, their
 * events in `cor/Events/`, the quarterly zips in `Quarterly/Cor/`. The root itself is looked at too,
 * so a flat directory of files works as well. A directory that is missing is simply empty.
 */
export const SOURCE_DIRECTORIES: readonly string[] = ['cor', 'cor/Events', 'Quarterly/Cor', ''];

export interface ListedFile {
  readonly name: string;
  /** The file's path on the source. */
  readonly path: string;
  readonly kind: FileKind;
  /** A daily file's date, from its name; null for a quarterly zip (known once it is read). */
  readonly fileDate: string | null;
  readonly size: number;
  readonly modifiedAt: Date;
}

export interface RemoteStat {
  readonly size: number;
  readonly modifiedAt: Date;
}

export interface RegistrySource {
  /** For logs and records: never a password. */
  readonly description: string;
  /** The registry files found under the source's SOURCE_DIRECTORIES (fails if the root cannot be read). */
  list(): Promise<ListedFile[]>;
  /** Appends the file's bytes from `offset` on to the local file `dest`, which holds exactly `offset` bytes. */
  download(file: ListedFile, dest: string, offset: number): Promise<void>;
  /** The file as the source describes it now (to notice a file that changed while it was fetched). */
  stat(file: ListedFile): Promise<RemoteStat | null>;
  /** What the connection settled on (the SFTP cipher), for the run's record. */
  details(): Record<string, string>;
  close(): Promise<void>;
}

/** The kind and date a registry file's name gives it; undefined for any other file. */
export function classify(name: string): { kind: FileKind; fileDate: string | null } | undefined {
  const daily = (re: RegExp, kind: FileKind) => {
    const m = re.exec(name);
    return m ? { kind, fileDate: `${m[1]}-${m[2]}-${m[3]}` } : undefined;
  };
  if (QUARTERLY_CORPORATE_ZIP.test(name)) return { kind: 'quarterly_corporate', fileDate: null };
  if (QUARTERLY_EVENT_ZIP.test(name)) return { kind: 'quarterly_events', fileDate: null };
  return daily(DAILY_EVENT_FILE, 'daily_events') ?? daily(DAILY_CORPORATE_FILE, 'daily_corporate');
}

export interface DirectoryEntry {
  readonly name: string;
  readonly path: string;
  readonly isFile: boolean;
  readonly size: number;
  readonly modifiedAt: Date;
}

/** The registry files among the entries of the source's directories (in layout order), each name once. */
export function registryFiles(entries: readonly DirectoryEntry[]): ListedFile[] {
  const byName = new Map<string, ListedFile>();
  for (const e of entries) {
    const found = e.isFile ? classify(e.name) : undefined;
    if (!found || byName.has(e.name)) continue;
    byName.set(e.name, { name: e.name, path: e.path, ...found, size: e.size, modifiedAt: e.modifiedAt });
  }
  return [...byName.values()];
}
