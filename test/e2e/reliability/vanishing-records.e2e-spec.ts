import { insertEvent } from '../helpers/content';
import { API, createTestApp, errorBody, TestApp } from '../helpers/test-app';

/*
 * A record is written with its texts, but a list reads its page of IDs and
 * then the records in separate statements: a record deleted in between, or
 * found without texts, is left out of the page (a single read answers 404),
 * never a 500. Simulated here by removing the texts under the service.
 */
describe('records that vanish while they are read', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  it('leaves an event without texts out of the list and answers 404 for it', async () => {
    const kept = await insertEvent(t);
    const gone = await insertEvent(t);
    await t.dataSource.query('DELETE FROM event_translations WHERE event_id = ?', [gone]);

    const list = await t.http().get(`${API}/events`).expect(200);
    expect(list.body.events.map((event: { id: number }) => event.id)).toEqual([kept]);
    const single = await t.http().get(`${API}/events/${gone}`).expect(404);
    expect(single.body).toEqual(errorBody('rest-event-not-found', 404));
  });

  it('leaves a venue without texts out of the list and out of the events that link it', async () => {
    const venue = async (name: string) =>
      (
        await t
          .http()
          .post(`${API}/venues`)
          .set('Authorization', t.auth.editor)
          .send({ venue: name })
          .expect(201)
      ).body.id as number;
    const kept = await venue('Paradiso');
    const gone = await venue('Melkweg');
    const event = await insertEvent(t, { venueId: gone });
    await t.dataSource.query('DELETE FROM venue_translations WHERE venue_id = ?', [gone]);

    const list = await t.http().get(`${API}/venues`).expect(200);
    expect(list.body.venues.map((v: { id: number }) => v.id)).toEqual([kept]);
    const read = await t.http().get(`${API}/events/${event}`).expect(200);
    expect(read.body.venue).toEqual([]);
  });
});
