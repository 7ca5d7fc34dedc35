import type ICALModule from 'ical.js';
import { IANAZone } from 'luxon';

/*
 * Which IANA zone a TZID names (docs/api.md "Imports (draft: parsing rules)").
 * Calendar apps write IANA names (Google, Apple), IANA names behind a
 * vendor prefix (`/mozilla.org/20050126_1/Europe/Berlin`), or Windows names
 * (Outlook: `W. Europe Standard Time`), mapped by CLDR's windowsZones table
 * (windows-iana) to the zone CLDR gives for the world (territory 001). A
 * TZID none of those name, defined by its VTIMEZONE only, is read through
 * that block (ical.js) and its times become UTC.
 */

/** An IANA zone (or `UTC`), or a VTIMEZONE block that only ical.js can read. */
export type ResolvedZone = { iana: string } | { block: ICALModule.Timezone };

export { instantOf, wallAt } from './zone-offsets';

let ical: typeof ICALModule | undefined;
let windowsIana: typeof import('windows-iana') | undefined;

/** ical.js, loaded by the first import that needs it (as src/ical does: about 1 MB of heap). */
export function icalLibrary(): typeof ICALModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  ical ??= require('ical.js') as typeof ICALModule;
  return ical;
}

function windowsZones(): typeof import('windows-iana') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  windowsIana ??= require('windows-iana') as typeof import('windows-iana');
  return windowsIana;
}

const UTC_NAMES = new Set(['UTC', 'GMT', 'Z', 'ETC/UTC', 'ETC/GMT', 'UNIVERSAL', 'ZULU']);
/** Path segments tried after a vendor prefix. */
const MAX_SEGMENTS = 8;
const MAX_TZID = 128;

/** The IANA zone a name means by itself (IANA, UTC, prefixed IANA, Windows), or undefined. */
export function ianaZoneOf(rawName: string): string | undefined {
  const name = rawName.trim();
  if (name === '' || name.length > MAX_TZID) return undefined;
  if (UTC_NAMES.has(name.toUpperCase())) return 'UTC';
  if (isIana(name)) return IANAZone.create(name).name;
  const segments = name.split('/').filter((part) => part !== '');
  for (let from = 1; from < Math.min(segments.length, MAX_SEGMENTS); from += 1) {
    const candidate = segments.slice(from).join('/');
    if (isIana(candidate)) return candidate;
  }
  const windows = windowsZones().findIana(name)?.[0];
  return windows && isIana(windows) ? windows : undefined;
}

/** An IANA region name (not a fixed offset such as `UTC+1`, which luxon also accepts). */
function isIana(name: string): boolean {
  return name.includes('/') && IANAZone.isValidZone(name);
}

/** TZIDs of a feed: its VTIMEZONE blocks, resolved once each. */
export class FeedZones {
  private readonly blocks = new Map<string, ICALModule.Component>();
  private readonly resolved = new Map<string, ResolvedZone | null>();

  /** Whether a VTIMEZONE came after some TZID was found unknown (it may name it now). */
  grewSinceUnknown = false;
  private sawUnknown = false;

  /** A VTIMEZONE of the feed, as written. */
  add(text: string): void {
    const ICAL = icalLibrary();
    try {
      const component = new ICAL.Component(ICAL.parse(text));
      const tzid = component.getFirstPropertyValue('tzid');
      if (typeof tzid !== 'string' || this.blocks.has(tzid)) return;
      this.blocks.set(tzid, component);
      if (this.sawUnknown) {
        // A TZID looked up before its block came: looked up again.
        this.resolved.delete(tzid);
        this.grewSinceUnknown = true;
      }
    } catch {
      // A broken VTIMEZONE: its TZID is then resolved by name alone.
    }
  }

  /** The zone a TZID parameter names, or undefined (unknown: the VEVENT is skipped). */
  resolve(tzid: string): ResolvedZone | undefined {
    let zone = this.resolved.get(tzid);
    if (zone === undefined) {
      zone = this.lookUp(tzid) ?? null;
      if (zone === null) this.sawUnknown = true;
      if (this.resolved.size < 1000) this.resolved.set(tzid, zone);
    }
    return zone ?? undefined;
  }

  private lookUp(tzid: string): ResolvedZone | undefined {
    const byName = ianaZoneOf(tzid);
    if (byName) return { iana: byName };
    const block = this.blocks.get(tzid);
    if (!block) return undefined;
    const location = block.getFirstPropertyValue('x-lic-location');
    const byLocation = typeof location === 'string' ? ianaZoneOf(location) : undefined;
    if (byLocation) return { iana: byLocation };
    try {
      return { block: new (icalLibrary().Timezone)(block) };
    } catch {
      return undefined;
    }
  }
}

/** `YYYY-MM-DD HH:MM:SS` of an ical.js time's fields (its wall clock as written). */
export function wallOf(time: ICALModule.Time): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)} ` +
    `${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`
  );
}

/** Unix seconds of a time read through a VTIMEZONE block. */
export function blockInstant(time: ICALModule.Time, block: ICALModule.Timezone): number {
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  return wall / 1000 - block.utcOffset(time);
}
