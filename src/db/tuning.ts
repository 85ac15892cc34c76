// Server settings shipped with the embedded PostgreSQL, sized for the machine it runs on, and the
// advice an operator needs where the machine itself must change (huge pages).
import os from 'node:os';
import type pg from 'pg';

const mib = (bytes: number): string => `${Math.max(1, Math.floor(bytes / 1024 / 1024))}MB`;

/** `name=value` settings passed to the embedded server's command line. */
export function embeddedServerSettings(): string[] {
  const ram = os.totalmem();
  const cores = os.availableParallelism();
  return [
    'listen_addresses=127.0.0.1',
    // TCP on loopback only: no socket file to collide with the machine's own PostgreSQL.
    'unix_socket_directories=',
    'max_connections=100',
    `shared_buffers=${mib(Math.min(ram / 4, 8 * 1024 ** 3))}`,
    // On huge pages when the host has reserved them (see hugePagesAdvice), on 4 KB pages otherwise.
    'huge_pages=try',
    `effective_cache_size=${mib((ram * 3) / 4)}`,
    `maintenance_work_mem=${mib(Math.min(ram / 16, 2 * 1024 ** 3))}`,
    'work_mem=32MB',
    `max_parallel_workers_per_gather=${Math.max(0, Math.min(2, cores - 1))}`,
    `max_parallel_maintenance_workers=${Math.max(0, Math.min(2, cores - 1))}`,
    // Short OLTP-style queries: JIT compilation costs more than it saves.
    'jit=off',
    'random_page_cost=1.1',
    'effective_io_concurrency=64',
    // No replica ever follows the embedded server: tables a load creates and fills in one transaction
    // (COPY, index builds) then skip the write-ahead log instead of writing every byte twice.
    'wal_level=minimal',
    'max_wal_senders=0',
    'max_wal_size=8GB',
    'checkpoint_timeout=15min',
    // A daily file writes a full image of each page it first touches after a checkpoint (about 60,000
    // at 12.6 million entities). Compressing them with pglz, the only method this build has, took
    // 40% of a daily file's time; uncompressed they are 60% more bytes, written in sequence.
    'wal_compression=off',
    // Those images fill the default 16 MB of WAL buffers thousands of times a file.
    'wal_buffers=64MB',
    'synchronous_commit=on',
    // The buffers' contents are listed every few minutes and at shutdown, and read back in at start:
    // after a restart the hot indexes and rows are served from memory again instead of from disk.
    'shared_preload_libraries=pg_prewarm',
    'pg_prewarm.autoprewarm=on',
  ];
}

/**
 * The line for the operator when the server's shared memory is not on huge pages (`status` is
 * PostgreSQL 17's huge_pages_status; older servers do not say, and are not advised). On 4 KB pages a
 * connection takes a page fault the first time it touches each page of the buffer cache: at 12.6
 * million entities on a virtual machine, a filtered word counted over 15,000 cached rows took 390 ms
 * in a new connection and 37 ms in one that had touched them (35 ms in a new one on huge pages).
 */
export function hugePagesLine(status: string | null, pages: string | null): string | null {
  if (status !== 'off' || !pages) return null;
  return (
    "PostgreSQL's shared memory is on 4 KB pages, not huge pages: searches that read many cached rows run several " +
    `times slower. On the database host, reserve ${pages} huge pages (sysctl -w vm.nr_hugepages=${pages}, and the ` +
    'same in /etc/sysctl.conf to keep it) and restart PostgreSQL.'
  );
}

export async function hugePagesAdvice(pool: pg.Pool): Promise<string | null> {
  const { rows } = await pool.query<{ status: string | null; pages: string | null }>(
    `SELECT current_setting('huge_pages_status', true) AS status,
            current_setting('shared_memory_size_in_huge_pages', true) AS pages`,
  );
  return hugePagesLine(rows[0]!.status, rows[0]!.pages);
}
