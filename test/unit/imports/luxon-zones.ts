import { DateTime, Settings } from 'luxon';

/*
 * The import's wall-clock ↔ instant conversions written with luxon alone (as
 * they were before src/imports/zone-offsets.ts asked Intl once per zone and
 * day), for comparison. luxon reads a repeated hour by the offset of the
 * current time; here it is read at a day before and a day after the wall
 * time, and the earlier instant is taken: the first of the two (RFC 5545 §3.3.5).
 */

const DAY_MS = 86_400_000;

function luxonAt(wall: string, zone: string, now: number): number {
  const saved = Settings.now;
  Settings.now = () => now;
  try {
    return DateTime.fromSQL(wall, { zone }).toSeconds();
  } finally {
    Settings.now = saved;
  }
}

/** Unix seconds of a wall-clock time in a zone, the first of a repeated hour. */
export function luxonInstantOf(wall: string, zone: string): number {
  const local = Date.parse(`${wall.replace(' ', 'T')}Z`);
  if (Number.isNaN(local)) return DateTime.fromSQL(wall, { zone }).toSeconds();
  return Math.min(luxonAt(wall, zone, local - DAY_MS), luxonAt(wall, zone, local + DAY_MS));
}

/** The wall-clock time in a zone of Unix seconds. */
export function luxonWallAt(seconds: number, zone: string): string {
  return DateTime.fromSeconds(seconds, { zone }).toFormat('yyyy-MM-dd HH:mm:ss');
}
