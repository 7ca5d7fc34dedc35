import { Zone } from 'luxon';
import { parseZone } from '../../src/common/time/dates';

/*
 * Wall-clock ↔ unix seconds in an event's zone, with luxon's zone offsets
 * (as the service computes them), memoised per UTC day: a day whose first
 * and last second have the same offset has it throughout; the few days with
 * a transition get one offset per hour (the zones used change offset on
 * whole hours). A million events cost a few thousand luxon calls.
 */

const DAY = 86_400;

export class ZoneClock {
  private readonly zone: Zone;
  /** Offset in minutes per UTC day, or per hour of a day with a transition. */
  private readonly offsets = new Map<number, number | number[]>();

  constructor(readonly name: string) {
    const zone = parseZone(name);
    if (!zone) throw new Error(`Unknown time zone ${name}`);
    this.zone = zone;
  }

  /** The zone's offset from UTC in minutes at unix second `epoch`. */
  offsetAt(epoch: number): number {
    const day = Math.floor(epoch / DAY);
    let entry = this.offsets.get(day);
    if (entry === undefined) {
      const first = this.zone.offset(day * DAY * 1000);
      const last = this.zone.offset((day * DAY + DAY - 1) * 1000);
      entry =
        first === last
          ? first
          : Array.from({ length: 24 }, (_, hour) => this.zone.offset((day * DAY + hour * 3600) * 1000));
      this.offsets.set(day, entry);
    }
    return typeof entry === 'number' ? entry : entry[Math.floor((epoch - day * DAY) / 3600)];
  }

  /**
   * Unix seconds of a wall-clock time in this zone (`day`: days since
   * 1970-01-01), resolved as luxon does: the offset at the guessed instant,
   * corrected once; in a gap, the later offset.
   */
  toEpoch(day: number, hour: number, minute: number, second: number): number {
    const local = day * DAY + hour * 3600 + minute * 60 + second;
    const o1 = this.offsetAt(local);
    let guess = local - o1 * 60;
    const o2 = this.offsetAt(guess);
    if (o1 === o2) return guess;
    guess -= (o2 - o1) * 60;
    const o3 = this.offsetAt(guess);
    if (o2 === o3) return guess;
    return local - Math.max(o2, o3) * 60;
  }

  /** `YYYY-MM-DD HH:MM:SS` wall-clock of unix seconds in this zone. */
  toLocal(epoch: number): string {
    return formatUtc(epoch + this.offsetAt(epoch) * 60);
  }
}

/** Days since 1970-01-01 → `YYYY-MM-DD`. */
export function formatDay(day: number): string {
  return formatUtc(day * DAY).slice(0, 10);
}

/** Wall-clock text of seconds counted as if UTC. */
export function formatUtc(seconds: number): string {
  const d = new Date(seconds * 1000);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date (UTC). */
export function dayNumber(date: string): number {
  const parsed = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(parsed)) throw new Error(`Not a date: ${date}`);
  return Math.floor(parsed / 1000 / DAY);
}

export const SECONDS_PER_DAY = DAY;
