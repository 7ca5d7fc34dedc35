import { calendarHead } from '../../src/ical/ical-calendar';
import { IcalFeedService } from '../../src/ical/ical-feed.service';

/*
 * A read of the feed fails while the feed waits for a slow consumer (the
 * socket is full): the ID page read ahead, or the batch read beside the
 * writing. The read must already have a rejection handler (Node ends the
 * process on an unhandled rejection), and the failure reaches the consumer
 * when it asks for more.
 */
describe('iCalendar feed: a read that fails while the consumer waits', () => {
  it.each(['the next ID page', 'the next batch'] as const)(
    '%s: handled while the consumer waits, and its next read rejects',
    async (failing) => {
      let handled = false;
      let handledWhenItFailed: boolean | undefined;
      /** A promise that notes when a handler is attached to it. */
      class Watched<T> extends Promise<T> {
        override then<A = T, B = never>(
          onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
          onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
        ): Promise<A | B> {
          if (onRejected) handled = true;
          return super.then(onFulfilled, onRejected);
        }
      }
      // Fails a few milliseconds later, while the first batch is still being read.
      const failed = () =>
        new Watched((_resolve, reject) =>
          setTimeout(() => {
            handledWhenItFailed = handled;
            reject(new Error('connection lost'));
          }, 5),
        );
      const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(resolve, 20, value));
      const service = Object.create(IcalFeedService.prototype) as Record<string, unknown>;
      let pages = 0;
      let batches = 0;
      Object.assign(service, {
        config: { siteTimezone: 'UTC' },
        zonesOf: async () => '',
        leanContext: () => ({}),
        writeBatch: async () => Buffer.from('BEGIN:VEVENT\r\nEND:VEVENT\r\n'),
        reader: {
          idPage: () => {
            pages += 1;
            if (failing === 'the next ID page' && pages === 2) return failed();
            return Promise.resolve({ ids: [pages], after: { id: pages, startAt: 0 } });
          },
        },
        readBatch: () => {
          batches += 1;
          if (failing === 'the next batch' && batches === 2) return failed();
          return later({ pieces: [], plain: [] });
        },
      });
      const feed = (service as unknown as IcalFeedService).feed(
        { filters: {} } as never,
        { language: 'en' } as never,
      );
      expect((await feed.next()).value).toBe(calendarHead('en', 'UTC'));
      await feed.next(); // the zones
      // The first batch; the next batch's read (or the page after it) is in flight and fails.
      await feed.next();
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(handledWhenItFailed).toBe(true);
      await expect(feed.next()).rejects.toThrow('connection lost');
    },
  );
});
