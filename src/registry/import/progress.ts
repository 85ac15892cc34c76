// Progress of a long read: a live bar with records/s and ETA on a terminal, a log line every few
// seconds otherwise.
import cliProgress from 'cli-progress';

export interface Progress {
  start(label: string, totalBytes: number): void;
  advance(bytes: number, records: number): void;
  stop(): void;
}

export const silentProgress: Progress = { start() {}, advance() {}, stop() {} };

const duration = (seconds: number): string => {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${s % 60}s`
      : `${s}s`;
};

/** Progress on stderr when it is a terminal, else through `log` every `everyMs`. */
export function createProgress(log: (line: string) => void, opts: { tty?: boolean; everyMs?: number } = {}): Progress {
  const tty = opts.tty ?? process.stderr.isTTY === true;
  const everyMs = opts.everyMs ?? 10_000;
  let label = '';
  let total = 0;
  let bytes = 0;
  let records = 0;
  let startedAt = 0;
  let lastLog = 0;
  let bar: cliProgress.SingleBar | null = null;

  const rate = (): number => records / Math.max(0.001, (Date.now() - startedAt) / 1000);
  const eta = (): number => {
    const perByte = (Date.now() - startedAt) / 1000 / Math.max(1, bytes);
    return (total - bytes) * perByte;
  };
  return {
    start(l, totalBytes) {
      label = l;
      total = Math.max(1, totalBytes);
      bytes = 0;
      records = 0;
      startedAt = Date.now();
      lastLog = startedAt;
      if (tty) {
        bar = new cliProgress.SingleBar(
          {
            format: '{label} {bar} {percentage}% | {records} records | {rate}/s | ETA {etaText}',
            hideCursor: true,
            stream: process.stderr,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, 0, { label, records: 0, rate: 0, etaText: '?' });
      }
    },
    advance(b, r) {
      bytes += b;
      records += r;
      const now = Date.now();
      if (bar) bar.update(bytes, { label, records, rate: Math.round(rate()), etaText: duration(eta()) });
      else if (now - lastLog >= everyMs) {
        lastLog = now;
        log(
          `${label}: ${Math.floor((bytes / total) * 100)}%, ${records} records, ` +
            `${Math.round(rate())} records/s, ETA ${duration(eta())}`,
        );
      }
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
