// Server settings shipped with the embedded PostgreSQL, sized for the machine it runs on.
import os from 'node:os';

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
    'wal_compression=on',
    'synchronous_commit=on',
    // The buffers' contents are listed every few minutes and at shutdown, and read back in at start:
    // after a restart the hot indexes and rows are served from memory again instead of from disk.
    'shared_preload_libraries=pg_prewarm',
    'pg_prewarm.autoprewarm=on',
  ];
}
