import type { Language } from '../i18n/language';
import { TEXT } from '../i18n/messages';
import { fixedZoneBlock, isFixedOffset } from './ical-series';
import { contentLine, escapeText } from './ical-text';
import { zoneBlock } from './ical-zones';

/* The frame every calendar the service writes shares: its head and its VTIMEZONEs. */

export function calendarHead(language: Language, siteTimezone: string): string {
  return (
    'BEGIN:VCALENDAR\r\n' +
    contentLine('VERSION', '2.0') +
    contentLine('PRODID', '-//Calendar Events Service//calendar/events/v1//EN') +
    contentLine('CALSCALE', 'GREGORIAN') +
    contentLine('METHOD', 'PUBLISH') +
    contentLine('X-WR-CALNAME', escapeText(TEXT.calendarName[language])) +
    contentLine('X-WR-TIMEZONE', escapeText(siteTimezone))
  );
}

/**
 * The VTIMEZONEs of the IANA zones among these; UTC and UTC±H need none,
 * except UTC±H zones of series (`seriesZones`), whose rules are written on
 * the zone's wall clock.
 */
export function zoneComponents(zones: string[], seriesZones: string[] = []): string {
  const fixed = new Set(seriesZones.filter(isFixedOffset));
  return [...new Set(zones)]
    .sort()
    .flatMap((zone) => {
      if (fixed.has(zone)) return fixedZoneBlock(zone);
      return /^UTC/i.test(zone) ? [] : (zoneBlock(zone)?.text ?? []);
    })
    .join('');
}
