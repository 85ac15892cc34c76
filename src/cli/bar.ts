// A progress bar on a terminal (cli-progress), and nothing when stderr is not one: logs and CI output
// stay free of carriage returns.
import cliProgress from 'cli-progress';

export interface Bar {
  /** Names the work the next updates measure (the bar restarts at 0). */
  phase(label: string): void;
  update(done: number, total: number): void;
  stop(): void;
}

/** Labels are padded so that bars of successive phases line up. */
const LABEL_WIDTH = 24;

export function terminalBar(stream: NodeJS.WriteStream = process.stderr): Bar {
  if (!stream.isTTY) return { phase() {}, update() {}, stop() {} };
  let bar: cliProgress.SingleBar | null = null;
  let label = '';
  const stop = (): void => {
    bar?.stop();
    bar = null;
  };
  return {
    phase(l) {
      stop();
      label = l.padEnd(LABEL_WIDTH);
    },
    update(done, total) {
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            format: '{label} {bar} {percentage}% | {value}/{total}',
            hideCursor: true,
            stream,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, done, { label });
      }
      bar.setTotal(total);
      bar.update(done, { label });
    },
    stop,
  };
}
