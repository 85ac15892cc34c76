// The loop of a background worker (match jobs, exports): every API instance and `registry worker` runs one per
// slot. It claims a piece of work no live worker holds, runs it until it is done or the worker stops, and after an
// unexpected error (the database away) lets go of what it held and pauses before claiming again.

/** With nothing to claim, a worker looks again after this long: the longest new work waits to start. */
const IDLE_POLL_MS = 2_000;
/** After an unexpected error, a worker waits this long before claiming. */
const ERROR_PAUSE_MS = 5_000;

export interface WorkLoop<W> {
  /** What the worker is called in its log lines. */
  readonly name: string;
  /** Claims the next piece of work for this worker, or null when there is none. */
  claim(): Promise<W | null>;
  /** Runs a claimed piece until it is done or `stopping()` says to stop (it resumes on the next claim). */
  run(work: W, stopping: () => boolean): Promise<void>;
  /** Lets go of whatever this worker holds, so another may claim it at once. */
  release(): Promise<void>;
  readonly log: (line: string) => void;
}

export interface Worker {
  /** Claims no more and waits for the piece in hand. */
  stop(): Promise<void>;
}

const sleep = (ms: number, wake: { fn: (() => void) | null }): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake.fn = () => (clearTimeout(timer), resolve());
  });

/** Runs `slots` loops of `w` in this process. */
export function startWorkLoop<W>(w: WorkLoop<W>, slots: number): Worker {
  let stopped = false;
  const wakes = Array.from({ length: slots }, () => ({ fn: null as (() => void) | null }));
  const loop = async (wake: { fn: (() => void) | null }): Promise<void> => {
    while (!stopped) {
      try {
        const work = await w.claim();
        if (work) await w.run(work, () => stopped);
        else await sleep(IDLE_POLL_MS, wake);
      } catch (err) {
        w.log(`${w.name} worker: ${err instanceof Error ? err.message : String(err)}`);
        await w.release().catch(() => {});
        await sleep(ERROR_PAUSE_MS, wake);
      }
    }
  };
  const loops = wakes.map(loop);
  return {
    async stop() {
      stopped = true;
      for (const wake of wakes) wake.fn?.();
      await Promise.all(loops);
      // Its work is free to claim at once, rather than once this process's lock is gone.
      await w.release().catch(() => {});
    },
  };
}
