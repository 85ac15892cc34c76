// Time as the service sees it. Everything that depends on the date (trial days, cycles, pack
// expiry, rate windows) takes a Clock, so tests move through time without sleeping.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests set and advance by hand. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | string) {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  set(to: Date | string): void {
    this.t = new Date(to).getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export const DAY_MS = 86_400_000;

/** The UTC calendar date of a moment, `YYYY-MM-DD`. */
export const isoDay = (d: Date): string => d.toISOString().slice(0, 10);

/** The UTC date `n` days after the date `day` (`YYYY-MM-DD`; n may be negative). */
export const addDays = (day: string, n: number): string =>
  isoDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
