import {
  IcalImportParser,
  parseIcalendar,
  parseIcalendarStream,
} from '../../../src/imports/ical-import-parser';
import type { ImportParseResult } from '../../../src/imports/import-item';

/*
 * The bounds of a parse and the malformed shapes a feed can take: each gives
 * a refusal or a skipped VEVENT with its reason, never a throw.
 */

const parse = (body: string | Buffer, limits = {}) =>
  parseIcalendar(body, { defaultZone: 'Europe/Amsterdam', limits });

const calendar = (...vevents: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...vevents, 'END:VCALENDAR', ''].join(
    '\r\n',
  );

const vevent = (uid: string, ...lines: string[]) =>
  [
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20261128T100000Z',
    'DTSTART:20270105T100000Z',
    'DTEND:20270105T110000Z',
    'SUMMARY:Event',
    ...lines,
    'END:VEVENT',
  ].join('\r\n');

const uids = (result: ImportParseResult) => result.items.map((entry) => entry.uid);
const reasons = (result: ImportParseResult) =>
  result.skipped.map(({ index, uid, reason }) => ({ index, uid, reason }));

describe('iCalendar import bounds', () => {
  it('refuses a 50 MB body as too large, whole or streamed, without reading it all', async () => {
    const body = Buffer.alloc(50 * 1024 * 1024, 'A');
    const refused = {
      items: [],
      skipped: [],
      refused: { reason: 'too_large', limit: 10 * 1024 * 1024, found: body.length },
      calendarName: null,
    };
    expect(parse(body)).toEqual(refused);

    let read = 0;
    async function* chunks() {
      for (let offset = 0; offset < body.length; offset += 1024 * 1024) {
        read += 1;
        yield body.subarray(offset, offset + 1024 * 1024);
      }
    }
    const streamed = await parseIcalendarStream(chunks(), { defaultZone: 'UTC' });
    expect(streamed.refused).toEqual({
      reason: 'too_large',
      limit: 10 * 1024 * 1024,
      found: 11 * 1024 * 1024,
    });
    expect(read).toBe(11);
  });

  it('takes a body of exactly the limit', () => {
    const body = calendar(vevent('a'));
    expect(uids(parse(body, { maxBytes: Buffer.byteLength(body) }))).toEqual(['a']);
    expect(parse(body, { maxBytes: Buffer.byteLength(body) - 1 }).refused?.reason).toBe(
      'too_large',
    );
  });

  it('refuses a feed with more VEVENTs than the limit (20,000 by default) and counts them all', () => {
    const many = (n: number) => calendar(...Array.from({ length: n }, (_, i) => vevent(`e${i}`)));
    expect(parse(many(20_001)).refused).toEqual({
      reason: 'too_many_events',
      limit: 20_000,
      found: 20_001,
    });
    expect(parse(many(7), { maxEvents: 5 }).refused).toEqual({
      reason: 'too_many_events',
      limit: 5,
      found: 7,
    });
    expect(uids(parse(many(5), { maxEvents: 5 }))).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
  });

  it('skips a VEVENT with a content line over the limit, also one folded or without line ends', () => {
    const long = 'x'.repeat(300 * 1024);
    const folded = Array.from({ length: 5000 }, () => ' ' + 'y'.repeat(70)).join('\r\n');
    const result = parse(
      calendar(
        vevent('a'),
        vevent('long', `DESCRIPTION:${long}`).replace(
          'UID:long',
          'BEGIN:VALARM\r\nUID:alarm\r\nEND:VALARM\r\nUID:long',
        ),
        vevent('folded', `DESCRIPTION:start\r\n${folded}`),
        vevent('b'),
      ),
      { maxLineChars: 256 * 1024 },
    );
    expect(uids(result)).toEqual(['a', 'b']);
    expect(reasons(result)).toEqual([
      { index: 2, uid: 'long', reason: 'property_too_long' },
      { index: 3, uid: 'folded', reason: 'property_too_long' },
    ]);
    // One line of 5 MB without a line end: refused as no calendar, read once.
    expect(parse('y'.repeat(5 * 1024 * 1024)).refused).toEqual({
      reason: 'not_icalendar',
      limit: null,
      found: 5 * 1024 * 1024,
    });
  });

  it('refuses a body that is no calendar', () => {
    expect(parse('<!doctype html><html><body>Not found</body></html>').refused?.reason).toBe(
      'not_icalendar',
    );
    expect(parse('').refused?.reason).toBe('not_icalendar');
  });

  it('reports each malformed VEVENT with its reason and keeps the good ones', () => {
    const result = parse(
      calendar(
        vevent('good-1'),
        ['BEGIN:VEVENT', 'UID:no-start', 'SUMMARY:x', 'END:VEVENT'].join('\r\n'),
        vevent('backwards', 'DTEND:20270101T000000Z').replace('DTEND:20270105T110000Z\r\n', ''),
        ['BEGIN:VEVENT', 'UID:no-summary', 'DTSTART:20270105T100000Z', 'END:VEVENT'].join('\r\n'),
        vevent('bad-date').replace('DTSTART:20270105T100000Z', 'DTSTART:2027-01-05'),
        vevent('bad-line', 'THIS LINE HAS NO COLON'),
        vevent('two-rules', 'RRULE:FREQ=DAILY;COUNT=2', 'RRULE:FREQ=WEEKLY;COUNT=2'),
        vevent('never', 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'),
        vevent('year-0', 'RDATE:00010101T000000Z'),
        vevent('good-2'),
        vevent('good-1', 'SEQUENCE:1'),
      ),
    );
    expect(uids(result)).toEqual(['good-2', 'good-1']);
    expect(result.items[1].sequence).toBe(1);
    expect(reasons(result)).toEqual([
      { index: 1, uid: 'good-1', reason: 'duplicate' },
      { index: 2, uid: 'no-start', reason: 'missing_start' },
      { index: 3, uid: 'backwards', reason: 'bad_dates' },
      { index: 4, uid: 'no-summary', reason: 'missing_summary' },
      { index: 5, uid: 'bad-date', reason: 'malformed' },
      { index: 6, uid: 'bad-line', reason: 'malformed' },
      { index: 7, uid: 'two-rules', reason: 'unsupported_recurrence' },
      { index: 8, uid: 'never', reason: 'unsupported_recurrence' },
      { index: 9, uid: 'year-0', reason: 'bad_dates' },
    ]);
    for (const skipped of result.skipped) expect(skipped.detail.length).toBeLessThanOrEqual(200);
  });

  it('reports a VEVENT cut off by the end of the body, and one left open inside', () => {
    const cut =
      calendar(vevent('a')).replace('END:VCALENDAR\r\n', '') + 'BEGIN:VEVENT\r\nUID:cut\r\n';
    const result = parse(cut);
    expect(uids(result)).toEqual(['a']);
    expect(reasons(result)).toEqual([{ index: 2, uid: 'cut', reason: 'malformed' }]);

    const openAlarm = vevent('alarm', 'BEGIN:VALARM', 'ACTION:DISPLAY');
    const after = parse(calendar(openAlarm, vevent('after')));
    expect(uids(after)).toContain('after');
  });

  it('reads LF-only line ends, a BOM, lower-case names and chunks cut anywhere', () => {
    const body = `\ufeff${calendar(vevent('a'), vevent('b')).replaceAll('\r\n', '\n').replace('BEGIN:VEVENT', 'begin:vevent')}`;
    const bytes = Buffer.from(body.replace('SUMMARY:Event', 'SUMMARY:Café ☕'));
    const whole = parse(bytes);
    expect(uids(whole)).toEqual(['a', 'b']);
    expect(whole.items[0].title).toBe('Café ☕');
    const parser = new IcalImportParser({ defaultZone: 'UTC' });
    // One byte at a time: UTF-8 characters and CRLFs are split between chunks.
    for (let i = 0; i < bytes.length; i += 1) parser.push(bytes.subarray(i, i + 1));
    expect(parser.finish()).toEqual(whole);
  });

  it('bounds the texts it keeps', () => {
    const result = parse(
      calendar(
        vevent(
          'texts',
          `CATEGORIES:${Array.from({ length: 150 }, (_, i) => `c${i}`).join(',')}`,
          `LOCATION:${'L'.repeat(500)}`,
          `URL:javascript:alert(1)`,
          'GEO:91;200',
        ).replace('SUMMARY:Event', `SUMMARY:${'T'.repeat(300)}`),
      ),
    );
    const [entry] = result.items;
    expect([entry.title.length, entry.categories.length, entry.venue?.name.length]).toEqual([
      200, 101, 200,
    ]);
    expect([entry.url, entry.venue?.geo]).toEqual([null, null]);
  });

  it('reads a TZID whose VTIMEZONE comes after the VEVENT that uses it', () => {
    const zone = [
      'BEGIN:VTIMEZONE',
      'TZID:Custom +0530',
      'BEGIN:STANDARD',
      'DTSTART:16010101T000000',
      'TZOFFSETFROM:+0530',
      'TZOFFSETTO:+0530',
      'END:STANDARD',
      'END:VTIMEZONE',
    ].join('\r\n');
    const late = vevent('late')
      .replace('DTSTART:20270105T100000Z', 'DTSTART;TZID=Custom +0530:20270105T100000')
      .replace('DTEND:20270105T110000Z', 'DTEND;TZID=Custom +0530:20270105T113000');
    const result = parse(calendar(late, zone));
    expect(result.skipped).toEqual([]);
    expect([result.items[0].start, result.items[0].end]).toEqual([
      { local: '2027-01-05 04:30:00', timezone: 'UTC' },
      { local: '2027-01-05 06:00:00', timezone: 'UTC' },
    ]);
  });

  it("names a detached instance by its original start in the series' zone", () => {
    const series = vevent('s', 'RRULE:FREQ=DAILY;COUNT=5')
      .replace('DTSTART:20270105T100000Z', 'DTSTART;TZID=Europe/Amsterdam:20270105T100000')
      .replace('DTEND:20270105T110000Z', 'DTEND;TZID=Europe/Amsterdam:20270105T110000');
    // RECURRENCE-ID written in UTC (09:00Z is 10:00 in Amsterdam in January).
    const moved = vevent('s', 'RECURRENCE-ID:20270107T090000Z');
    const result = parse(calendar(moved, series));
    expect(result.items.map((entry) => [entry.uid, entry.recurrenceId])).toEqual([
      ['s', { local: '2027-01-07 10:00:00', timezone: 'Europe/Amsterdam' }],
      ['s', null],
    ]);
  });
});
