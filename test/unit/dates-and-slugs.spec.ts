import { FixedOffsetZone, IANAZone, Settings } from 'luxon';
import { firstFreeSlug, toSlug } from '../../src/posts/slugs';
import { parseDateInput, parseZone, toWire, wireDetails } from '../../src/common/time/dates';

const amsterdam = IANAZone.create('Europe/Amsterdam');

describe('parseZone', () => {
  it('reads IANA names and UTC offsets', () => {
    expect(parseZone('Europe/Amsterdam')?.name).toBe('Europe/Amsterdam');
    expect(parseZone('UTC')?.offset(0)).toBe(0);
    expect(parseZone('UTC+2')?.offset(0)).toBe(120);
    expect(parseZone('UTC-03:30')?.offset(0)).toBe(-210);
  });

  it.each([['Mars/Base'], ['UTC+15'], [''], [42], ['x'.repeat(65)]])('rejects %p', (name) => {
    expect(parseZone(name)).toBeUndefined();
  });
});

describe('parseDateInput', () => {
  it('reads the wire form and a bare date as wall-clock times in the zone', () => {
    expect(toWire(parseDateInput('2026-03-29 02:30:00', amsterdam)!.toUTC())).toBe(
      '2026-03-29 01:30:00',
    );
    expect(toWire(parseDateInput('2026-07-01', amsterdam)!)).toBe('2026-07-01 00:00:00');
    expect(toWire(parseDateInput('2026-07-01', amsterdam)!.toUTC())).toBe('2026-06-30 22:00:00');
  });

  it('converts ISO 8601 with an offset into the zone and reads one without in it', () => {
    expect(toWire(parseDateInput('2026-07-01T12:00:00Z', amsterdam)!)).toBe('2026-07-01 14:00:00');
    expect(toWire(parseDateInput('2026-07-01T12:00:00+05:00', amsterdam)!)).toBe(
      '2026-07-01 09:00:00',
    );
    expect(toWire(parseDateInput('2026-07-01T12:00', amsterdam)!)).toBe('2026-07-01 12:00:00');
  });

  describe('a wall-clock time the zone shows twice', () => {
    const realNow = Settings.now;
    afterEach(() => {
      Settings.now = realNow;
    });

    // luxon resolves it by the zone's offset at the moment of parsing: read in summer and in winter.
    it.each([
      ['summer', Date.UTC(2026, 6, 1)],
      ['winter', Date.UTC(2026, 11, 1)],
    ])('is the first of the two whenever it is read (%s)', (_season, now) => {
      Settings.now = () => now;
      const utc = (input: string, zone: IANAZone) => toWire(parseDateInput(input, zone)!.toUTC());
      expect(utc('2027-10-31 02:30:00', amsterdam)).toBe('2027-10-31 00:30:00');
      expect(utc('2027-10-31T02:30:00', amsterdam)).toBe('2027-10-31 00:30:00');
      expect(utc('2027-11-07 01:30:00', IANAZone.create('America/New_York'))).toBe(
        '2027-11-07 05:30:00',
      );
      // Lord Howe goes back by 30 minutes.
      expect(utc('2027-04-04 01:45:00', IANAZone.create('Australia/Lord_Howe'))).toBe(
        '2027-04-03 14:45:00',
      );
      // Either side of the repeated hour, and a given offset, are unchanged.
      expect(utc('2027-10-31 01:59:59', amsterdam)).toBe('2027-10-30 23:59:59');
      expect(utc('2027-10-31 03:00:00', amsterdam)).toBe('2027-10-31 02:00:00');
      expect(utc('2027-10-31T02:30:00+01:00', amsterdam)).toBe('2027-10-31 01:30:00');
      // The skipped hour moves forward by the gap.
      expect(utc('2027-03-28 02:30:00', amsterdam)).toBe('2027-03-28 01:30:00');
    });
  });

  it('reads digits as unix seconds', () => {
    expect(toWire(parseDateInput('1700000000', FixedOffsetZone.utcInstance)!)).toBe(
      '2023-11-14 22:13:20',
    );
    expect(toWire(parseDateInput(1700000000, FixedOffsetZone.utcInstance)!)).toBe(
      '2023-11-14 22:13:20',
    );
  });

  it.each([
    ['2024-13-01'],
    ['2024-02-30'],
    ['yesterday'],
    [''],
    [null],
    [{}],
    ['2024-01-01 25:00:00'],
  ])('rejects %p', (input) => {
    expect(parseDateInput(input, amsterdam)).toBeUndefined();
  });

  it('details a date as zero-padded strings', () => {
    expect(wireDetails(toWire(parseDateInput('2026-01-02 03:04:05', amsterdam)!))).toEqual({
      year: '2026',
      month: '01',
      day: '02',
      hour: '03',
      minutes: '04',
      seconds: '05',
    });
  });
});

describe('slugs', () => {
  it.each([
    ['Jazz in het Park', 'jazz-in-het-park'],
    ['Live Muziek & Jazz', 'live-muziek-jazz'],
    ['Café Ümlaut 100%', 'cafe-umlaut-100'],
    ['  --Hello--  ', 'hello'],
    ['🎉🎉', 'fallback'],
    // WordPress's sanitize_title gives these (apostrophes, straight and curly, are dropped).
    ["Children's Day", 'childrens-day'],
    ['Rock ’n’ Roll', 'rock-n-roll'],
  ])('%s → %s', (text, slug) => expect(toSlug(text, 'fallback')).toBe(slug));

  it('cuts long titles at 200 characters and keeps a 200-character slug whole', () => {
    expect(toSlug('a'.repeat(300), 'x')).toBe('a'.repeat(200));
    expect(toSlug('b'.repeat(200), 'x')).toBe('b'.repeat(200));
  });

  it('shortens a long taken slug so the suffixed one stays within 200 characters', () => {
    const long = `${'a'.repeat(191)}-${'b'.repeat(8)}`;
    expect(firstFreeSlug(long, [])).toBe(long);
    expect(firstFreeSlug(long, [long])).toBe(`${'a'.repeat(191)}-2`);
    expect(firstFreeSlug(long, [long, `${'a'.repeat(191)}-2`])).toBe(`${'a'.repeat(191)}-3`);
  });

  it('finds the first free suffix', () => {
    expect(firstFreeSlug('jazz', [])).toBe('jazz');
    expect(firstFreeSlug('jazz', ['jazz'])).toBe('jazz-2');
    expect(firstFreeSlug('jazz', ['jazz', 'jazz-2', 'jazz-4'])).toBe('jazz-3');
  });
});
