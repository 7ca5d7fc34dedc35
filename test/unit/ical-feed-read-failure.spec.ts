import { IcalService } from '../../src/ical/ical.service';

/*
 * A batch read fails while the feed waits for a slow consumer (the socket is
 * full): the read must already have a rejection handler (Node ends the process
 * on an unhandled rejection), and the failure reaches the consumer when it
 * asks for more.
 */
describe('iCalendar feed: a batch read that fails while the consumer waits', () => {
  it('is handled while the consumer waits and rejects its next read', async () => {
    let handledEarly = false;
    /** A promise that notes when a handler is attached to it. */
    class Watched<T> extends Promise<T> {
      override then<A = T, B = never>(
        onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
        onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
      ): Promise<A | B> {
        if (onRejected) handledEarly = true;
        return super.then(onFulfilled, onRejected);
      }
    }
    const service = Object.create(IcalService.prototype) as Record<string, unknown>;
    let reads = 0;
    Object.assign(service, {
      calendarHead: () => 'BEGIN:VCALENDAR\r\n',
      zonesOf: async () => '',
      leanContext: () => ({}),
      writeBatch: () => Buffer.from('BEGIN:VEVENT\r\nEND:VEVENT\r\n'),
      readBatch: () => {
        reads += 1;
        if (reads === 1) return Promise.resolve({ after: 'cursor' });
        const failed = new Watched((_resolve, reject) => reject(new Error('connection lost')));
        handledEarly = false;
        return failed;
      },
    });
    const feed = (service as unknown as IcalService).feed({} as never, {} as never);
    expect((await feed.next()).value).toBe('BEGIN:VCALENDAR\r\n');
    await feed.next(); // the zones
    await feed.next(); // the first batch; the second read is in flight (and has failed)
    expect(reads).toBe(2);
    expect(handledEarly).toBe(true);
    await expect(feed.next()).rejects.toThrow('connection lost');
  });
});
