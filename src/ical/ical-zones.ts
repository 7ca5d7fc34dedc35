import type ICALModule from 'ical.js';
import { IANAZone } from 'luxon';
import { utcWire, zoneOffset } from '../common/time/dates';
import type * as TzLib from 'timezones-ical-library';

/*
 * VTIMEZONE components come from timezones-ical-library (compiled from the
 * IANA tz database and republished with it). It gives each zone's current
 * rules; a zone whose rules changed within a feed's dates would be described
 * wrongly for the older dates, so every local time the feed writes is
 * checked against the block with ical.js (the parser calendar apps mirror):
 * a time the block does not describe exactly is written in UTC instead.
 */

/** A zone's VTIMEZONE and a check that it gives a local time the offset we expect. */
export interface ZoneBlock {
  /** The VTIMEZONE component, CRLF-terminated. */
  text: string;
  /** True when the block maps this wall-clock time to this UTC offset (seconds). */
  covers(wire: string, offsetSeconds: number): boolean;
  /** The same, the wall-clock time given as seconds since 1970-01-01 00:00 of that clock. */
  coversLocal(localSeconds: number, offsetSeconds: number): boolean;
}

const MAX_CHECKS_KEPT = 50_000;

interface ZoneLibraries {
  ICAL: typeof ICALModule;
  tzlib: typeof TzLib;
}
let libraries: ZoneLibraries | undefined;

/**
 * Both libraries, loaded by the first feed that needs a zone: only feeds use
 * them, and the service would otherwise keep their code (ical.js alone about
 * 1 MB of heap) from start-up on.
 */
function zoneLibraries(): ZoneLibraries {
  libraries ??= {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ICAL: require('ical.js') as typeof ICALModule,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    tzlib: require('timezones-ical-library') as typeof TzLib,
  };
  return libraries;
}

const blocks = new Map<string, ZoneBlock | null>();
let known: Set<string> | undefined;

/**
 * The VTIMEZONE of an IANA zone, its TZID the name as the event stores it
 * (the library answers a link such as Europe/Amsterdam with its target's
 * block: the rules are the same, the TZID must be ours). Null when the
 * library does not know the zone.
 */
export function zoneBlock(zone: string): ZoneBlock | null {
  let block = blocks.get(zone);
  if (block === undefined) {
    block = buildBlock(zone);
    blocks.set(zone, block);
  }
  return block;
}

function buildBlock(zone: string): ZoneBlock | null {
  const { ICAL, tzlib } = zoneLibraries();
  known ??= new Set(tzlib.tzlib_get_timezones(false) as string[]);
  // Asked only for names it has (it logs an error for the others).
  if (!known.has(zone)) return null;
  const found = tzlib.tzlib_get_ical_block(zone);
  const raw = Array.isArray(found) ? found[0] : '';
  if (!raw || !raw.startsWith('BEGIN:VTIMEZONE')) return null;
  const text = `${raw
    .split(/\r?\n/)
    .map((line) =>
      line.startsWith('TZID:')
        ? `TZID:${zone}`
        : line.startsWith('X-LIC-LOCATION:')
          ? `X-LIC-LOCATION:${zone}`
          : line,
    )
    .join('\r\n')
    .trimEnd()}\r\n`;
  const timezone = new ICAL.Timezone(new ICAL.Component(ICAL.parse(text)));
  const blockOffset = (wire: string) =>
    timezone.utcOffset(
      ICAL.Time.fromData({
        year: Number(wire.slice(0, 4)),
        month: Number(wire.slice(5, 7)),
        day: Number(wire.slice(8, 10)),
        hour: Number(wire.slice(11, 13)),
        minute: Number(wire.slice(14, 16)),
        second: Number(wire.slice(17, 19)),
      }),
    );
  const luxonZone = IANAZone.create(zone);
  // Per local day (days since 1970): the one offset both the block and the tz database give all day, or null.
  const steady = new Map<number, number | null>();
  const times = new Map<number, number>();
  const coversLocal = (local: number, offsetSeconds: number): boolean => {
    // Not a time of four-digit years: no offset can match (as before, without throwing).
    if (!Number.isFinite(local)) return false;
    const day = Math.floor(local / 86_400);
    let dayOffset = steady.get(day);
    if (dayOffset === undefined) {
      dayOffset = steadyOffset(day, luxonZone, blockOffset);
      if (steady.size >= MAX_CHECKS_KEPT) steady.clear();
      steady.set(day, dayOffset);
    }
    if (dayOffset !== null) return dayOffset === offsetSeconds;
    // A day with a change: the time itself is checked.
    let offset = times.get(local);
    if (offset === undefined) {
      offset = blockOffset(utcWire(local));
      if (times.size >= MAX_CHECKS_KEPT) times.clear();
      times.set(local, offset);
    }
    return offset === offsetSeconds;
  };
  return {
    text,
    coversLocal,
    covers: (wire, offsetSeconds) => coversLocal(wireSeconds(wire), offsetSeconds),
  };
}

/** `YYYY-MM-DD HH:MM:SS` → seconds since 1970 of that wall clock. */
function wireSeconds(wire: string): number {
  return Date.parse(`${wire.slice(0, 10)}T${wire.slice(11, 19)}Z`) / 1000;
}

/**
 * The offset (seconds) of a local day when the tz database has no change in
 * it and the block gives that same offset at its start, noon and end; null
 * otherwise. The tz database side is read with the cached zoneOffset over
 * every instant the local day can cover (UTC−12 to UTC+14 around it): the
 * same offset at both ends and in the middle means none in between.
 */
function steadyOffset(
  day: number,
  zone: IANAZone,
  blockOffset: (wire: string) => number,
): number | null {
  const naive = day * 86_400;
  const minutes = zoneOffset(zone, naive - 14 * 3600);
  if (
    zoneOffset(zone, naive + 12 * 3600) !== minutes ||
    zoneOffset(zone, naive + 86_400 + 12 * 3600) !== minutes
  ) {
    return null;
  }
  const offset = minutes * 60;
  const date = utcWire(naive).slice(0, 10);
  const blocks = ['00:00:00', '12:00:00', '23:59:59'].map((time) => blockOffset(`${date} ${time}`));
  return blocks.every((block) => block === offset) ? offset : null;
}
