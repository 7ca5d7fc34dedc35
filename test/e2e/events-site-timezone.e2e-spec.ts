import { DateTime } from 'luxon';
import { eventRequests } from './helpers/events';
import { createTestApp, TestApp } from './helpers/test-app';

/** SITE_TIMEZONE is the default zone of events and of the list's date filters. */
describe('events with SITE_TIMEZONE=Europe/Amsterdam', () => {
  let t: TestApp;
  let api: ReturnType<typeof eventRequests>;
  beforeAll(async () => {
    t = await createTestApp({ SITE_TIMEZONE: 'Europe/Amsterdam' });
    api = eventRequests(t);
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  const titles = async (query: string) =>
    (await api.get(`/events${query}`).expect(200)).body.events.map(
      (e: { title: string }) => e.title,
    );

  it('gives events without a timezone the site zone', async () => {
    const res = await api
      .create({ title: 'Koningsdag', start_date: '2031-04-26 10:00', end_date: '2031-04-26 23:00' })
      .expect(201);
    expect(res.body).toMatchObject({
      timezone: 'Europe/Amsterdam',
      timezone_abbr: 'CEST',
      start_date: '2031-04-26 10:00:00',
      utc_start_date: '2031-04-26 08:00:00',
    });
  });

  it('reads a wall-clock time the zone shows twice as the first of the two, in any season', async () => {
    // 02:30 on 26 October 2031 happens at 00:30 UTC (summer time) and again at 01:30 UTC.
    const res = await api
      .create({
        title: 'Terugzetten',
        start_date: '2031-10-26 02:30',
        end_date: '2031-10-26 02:45',
      })
      .expect(201);
    expect(res.body).toMatchObject({
      start_date: '2031-10-26 02:30:00',
      utc_start_date: '2031-10-26 00:30:00',
      end_date: '2031-10-26 02:45:00',
      utc_end_date: '2031-10-26 00:45:00',
      timezone_abbr: 'CEST',
    });
    const read = await api.get(`/events/${res.body.id}`).expect(200);
    expect(read.body.utc_start_date).toBe('2031-10-26 00:30:00');
  });

  it('reads date filters without an offset in the site zone, and whole days there', async () => {
    // 23:30 UTC on the 10th is 00:30 on the 11th in Amsterdam.
    await api
      .create({
        title: 'Nacht',
        timezone: 'UTC',
        start_date: '2031-03-10 23:30',
        end_date: '2031-03-10 23:45',
      })
      .expect(201);
    expect(await titles('?start_date=2031-03-11&end_date=2031-03-11')).toEqual(['Nacht']);
    expect(await titles('?start_date=2031-03-10&end_date=2031-03-10')).toEqual([]);
    expect(
      await titles(
        '?start_date=2031-03-10T00:00:00Z&end_date=2031-03-10T23:59:59Z&strict_dates=true',
      ),
    ).toEqual(['Nacht']);
  });

  it('starts the default window at yesterday 00:00:00 in the site zone', async () => {
    const midnight = DateTime.now().setZone('Europe/Amsterdam').minus({ days: 1 }).startOf('day');
    const wire = (dt: DateTime) => dt.toFormat('yyyy-MM-dd HH:mm:ss');
    const create = (title: string, start: DateTime) =>
      api.create({ title, start_date: wire(start), end_date: wire(start) }).expect(201);
    await create('Net te vroeg', midnight.minus({ seconds: 1 }));
    await create('Precies op tijd', midnight);
    expect(await titles('')).toEqual(['Precies op tijd']);
  });
});
