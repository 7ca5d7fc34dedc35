import fc from 'fast-check';
import { parseIcalendar } from '../../../src/imports/ical-import-parser';
import type { ImportParseResult } from '../../../src/imports/import-item';
import { fixture } from './ical-fixtures';

/*
 * Random mutations of the hand-written feeds (lines dropped, repeated, swapped,
 * cut; iCalendar's own tokens and stray bytes inserted anywhere) never make
 * the parser throw, every answer keeps its shape and bounds, and the time it
 * takes grows linearly with the body.
 */

const FEEDS = ['google.ics', 'outlook.ics', 'apple.ics', 'calendar-service.ics'].map((name) =>
  fixture(name).toString('utf8').split('\r\n'),
);

const TOKENS = [
  'BEGIN:VEVENT',
  'END:VEVENT',
  'BEGIN:VALARM',
  'END:VCALENDAR',
  'BEGIN:VTIMEZONE',
  ';TZID=',
  ';VALUE=DATE',
  ':',
  ';',
  ',',
  '\\',
  '\\n',
  ' ',
  '\t',
  '\r',
  '\n',
  '"',
  '=',
  'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
  'RRULE:FREQ=SECONDLY',
  'EXDATE:99991231T235959Z',
  'RECURRENCE-ID:20270101',
  '00000000T000000Z',
  '\u0000',
  '\ud83c',
  '🎻',
];

type Mutation =
  | { op: 'drop' | 'repeat'; line: number }
  | { op: 'swap'; line: number; other: number }
  | { op: 'cut'; line: number; at: number }
  | { op: 'insert'; line: number; at: number; text: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constantFrom('drop' as const, 'repeat' as const), line: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), line: fc.nat(), other: fc.nat() }),
  fc.record({ op: fc.constant('cut' as const), line: fc.nat(), at: fc.nat() }),
  fc.record({
    op: fc.constant('insert' as const),
    line: fc.nat(),
    at: fc.nat(),
    text: fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 20 })),
  }),
);

function mutate(lines: string[], mutations: Mutation[]): string {
  const out = [...lines];
  for (const m of mutations) {
    const i = m.line % out.length;
    const line = out[i];
    switch (m.op) {
      case 'drop':
        out.splice(i, 1);
        break;
      case 'repeat':
        out.splice(i, 0, line);
        break;
      case 'swap': {
        const j = m.other % out.length;
        [out[i], out[j]] = [out[j], line];
        break;
      }
      case 'cut':
        out[i] = line.slice(0, m.at % (line.length + 1));
        break;
      case 'insert': {
        const at = m.at % (line.length + 1);
        out[i] = line.slice(0, at) + m.text + line.slice(at);
        break;
      }
    }
    if (out.length === 0) out.push('');
  }
  return out.join('\r\n');
}

const body = fc.tuple(
  fc.constantFrom(...FEEDS),
  fc.array(mutation, { minLength: 1, maxLength: 12 }),
);

const REASONS = [
  'malformed',
  'missing_uid',
  'missing_start',
  'missing_summary',
  'bad_dates',
  'unknown_timezone',
  'unsupported_recurrence',
  'property_too_long',
  'duplicate',
];

function checkShape(result: ImportParseResult, text: string): void {
  const vevents = text.toUpperCase().split('BEGIN:VEVENT').length - 1;
  expect(result.items.length + result.skipped.length).toBeLessThanOrEqual(vevents);
  for (const entry of result.items) {
    expect(entry.hash).toMatch(/^[\w-]{43}$/);
    expect(entry.uid.length).toBeGreaterThan(0);
    expect(entry.title.length).toBeLessThanOrEqual(200);
    expect(entry.start.local).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(entry.end.local >= entry.start.local).toBe(true);
    for (const line of entry.recurrence) expect(line.length).toBeLessThanOrEqual(2000);
  }
  for (const skipped of result.skipped) {
    expect(REASONS).toContain(skipped.reason);
    expect(skipped.detail.length).toBeLessThanOrEqual(200);
  }
}

const parse = (text: string) => parseIcalendar(text, { defaultZone: 'Europe/Amsterdam' });

describe('iCalendar import parser: random mutations', () => {
  it('never throws, and every answer keeps its shape', () => {
    fc.assert(
      fc.property(body, ([lines, mutations]) => {
        const text = mutate(lines, mutations);
        checkShape(parse(text), text);
      }),
      { numRuns: 400, seed: 20261128 },
    );
  });

  it('gives the same answer for the same body', () => {
    fc.assert(
      fc.property(body, ([lines, mutations]) => {
        const text = mutate(lines, mutations);
        expect(parse(text)).toEqual(parse(text));
      }),
      { numRuns: 50, seed: 7 },
    );
  });

  it('takes time linear in the body: four times the copies, at most eight times the time', () => {
    // CPU time of this process, not wall time: other processes on a loaded machine do not count.
    const fastest = (text: string) => {
      let best = Infinity;
      for (let run = 0; run < 3; run += 1) {
        const started = process.cpuUsage();
        parse(text);
        const used = process.cpuUsage(started);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      return best;
    };
    fc.assert(
      fc.property(body, ([lines, mutations]) => {
        const text = mutate(lines, mutations);
        const small = fastest(text.repeat(8));
        const large = fastest(text.repeat(32));
        // Five milliseconds of slack for the collector and the timer's resolution.
        expect(large).toBeLessThanOrEqual(8 * small + 5);
      }),
      // A time is no input to shrink: the first failure is the answer.
      { numRuns: 10, seed: 42, endOnFailure: true },
    );
  });
});
