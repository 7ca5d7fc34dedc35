import { parseIcalendar } from '../../../src/imports/ical-import-parser';
import { eventInputOf, type ResolvedLinks } from '../../../src/imports/import-event-input';
import type { ImportItem } from '../../../src/imports/import-item';
import { importHashOf } from '../../../src/imports/import-lookups';
import type { ImportTarget } from '../../../src/imports/import-report';
import { fixture } from './ical-fixtures';

/* An item as the body of an event write (docs/api.md "Imports", "Writing"). */

const TARGET: ImportTarget = {
  source: 'agenda',
  language: 'nl',
  status: 'publish',
  categoryIds: [7],
  trashRemoved: true,
  authorId: 1,
};
const AMS = 'Europe/Amsterdam';
const items = parseIcalendar(fixture('google.ics'), { defaultZone: AMS }).items;
const [series, moved, , kingsDay, lecture] = items;
const none: ResolvedLinks = { venues: new Map(), organizers: new Map(), categories: new Map() };

describe('an import item as an event body', () => {
  it('gives a series its rule and key, and a new venue and organizer with their keys', () => {
    expect(eventInputOf(series, TARGET, none)).toEqual({
      title: 'Koorrepetitie',
      description: series.description,
      all_day: false,
      timezone: AMS,
      start_date: '2027-03-02 19:00:00',
      end_date: '2027-03-02 21:30:00',
      website: '',
      status: 'publish',
      venue: {
        external_id: { source: 'agenda', id: series.venue?.key },
        venue: 'Muziekcentrum, Zaal 2, Lange Viestraat 2, 3511 BK Utrecht, Nederland',
      },
      organizer: [
        {
          external_id: { source: 'agenda', id: series.organizer?.key },
          organizer: 'Koor De Stem',
          email: 'bestuur@koordestem.example',
        },
      ],
      categories: [7],
      recurrence: [
        'RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270427T165959Z',
        'EXDATE;VALUE=DATE:20270316,20270330',
      ],
      external_id: { source: 'agenda', id: series.uid },
    });
  });

  it('gives a detached instance no rule and no key, and links found records by ID (a trashed one not)', () => {
    const links: ResolvedLinks = {
      venues: new Map([[moved.venue?.key as string, { id: 4, trashed: true }]]),
      organizers: new Map([[moved.organizer?.key as string, { id: 5, trashed: false }]]),
      categories: new Map(),
    };
    const input = eventInputOf(moved, { ...TARGET, categoryIds: [] }, links);
    expect([input.venue, input.organizer, input.categories, 'recurrence' in input, 'external_id' in input]).toEqual([
      null,
      [{ id: 5 }],
      [],
      false,
      false,
    ]);
  });

  it('maps categories by name once, a URL to the website, a private item to private, and clears what is missing', () => {
    const links: ResolvedLinks = { ...none, categories: new Map([['feestdag', 3]]) };
    const privateDay: ImportItem = { ...kingsDay, visibility: 'private', categories: ['Feestdag', 'FEESTDAG '] };
    const input = eventInputOf(privateDay, { ...TARGET, categoryIds: [3, 9] }, links);
    expect([input.all_day, input.start_date, input.end_date, input.categories, input.status, input.venue, input.organizer]).toEqual([
      true,
      '2027-04-27 00:00:00',
      '2027-04-27 23:59:59',
      [3, 9],
      'private',
      null,
      [],
    ]);
    expect(eventInputOf(privateDay, { ...TARGET, status: 'draft' }, links).status).toBe('draft');
    expect(eventInputOf(lecture, TARGET, none).website).toBe('https://example.org/lezing?id=42&lang=nl');
    const long = `https://example.org/${'a'.repeat(2048)}`;
    expect(eventInputOf({ ...lecture, url: long }, TARGET, none).website).toBe('');
  });

  it('stores a hash that moves with the item and with the target, not with the order of its categories', () => {
    const hash = importHashOf(lecture, TARGET);
    expect(hash).toMatch(/^[\w-]{43}$/);
    expect(importHashOf(lecture, { ...TARGET, trashRemoved: false, authorId: 9 })).toBe(hash);
    expect(importHashOf({ ...lecture, hash: 'other' }, TARGET)).not.toBe(hash);
    expect(importHashOf(lecture, { ...TARGET, status: 'draft' })).not.toBe(hash);
    expect(importHashOf(lecture, { ...TARGET, language: 'en' })).not.toBe(hash);
    expect(importHashOf(lecture, { ...TARGET, categoryIds: [7, 8] })).toBe(
      importHashOf(lecture, { ...TARGET, categoryIds: [8, 7] }),
    );
    expect(importHashOf(lecture, { ...TARGET, categoryIds: [] })).not.toBe(hash);
  });
});
