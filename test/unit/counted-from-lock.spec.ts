import fc from 'fast-check';
import { countedFromLock } from '../../src/events/event-term-writes';
import type { Term } from '../../src/terms/entities/term.entity';
import type { LockedTerm } from '../../src/terms/term-counts';

/*
 * A create reads its answer's term rows before it locks the terms; their
 * counts are then set from the locking read plus the create's own change,
 * which is what a read after its count UPDATE would have answered.
 */
describe('countedFromLock', () => {
  const termRow = (id: number, publishedCount: number) => ({ id, publishedCount }) as Term;

  it('takes each count from the lock, one more for the terms the create counts', () => {
    const terms = new Map([
      [1, termRow(1, 5)],
      [2, termRow(2, 7)],
      [3, termRow(3, 0)],
    ]);
    const locked = new Map<number, LockedTerm>([
      [1, { taxonomy: 'category', publishedCount: 9 }],
      [2, { taxonomy: 'post_tag', publishedCount: 7 }],
      [3, { taxonomy: 'post_tag', publishedCount: 4 }],
    ]);
    countedFromLock(terms, locked, [1, 3]);
    expect([...terms.values()].map((term) => term.publishedCount)).toEqual([10, 7, 5]);
  });

  it('equals the count UPDATE applied to the locked counts, for any terms and any counted subset', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { maxLength: 12 }),
        fc.array(fc.nat({ max: 10_000 }), { minLength: 12, maxLength: 12 }),
        fc.array(fc.nat({ max: 10_000 }), { minLength: 12, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        (ids, early, current, isCounted) => {
          const terms = new Map(ids.map((id, i) => [id, termRow(id, early[i])]));
          const locked = new Map(
            ids.map((id, i): [number, LockedTerm] => [
              id,
              { taxonomy: 'category', publishedCount: current[i] },
            ]),
          );
          const counted = ids.filter((_, i) => isCounted[i]);
          countedFromLock(terms, locked, counted);
          // UPDATE terms SET published_count = published_count + 1 WHERE id IN (counted)
          ids.forEach((id, i) =>
            expect(terms.get(id)?.publishedCount).toBe(current[i] + (isCounted[i] ? 1 : 0)),
          );
        },
      ),
    );
  });

  it('leaves a row the lock did not find as it was read', () => {
    const terms = new Map([[4, termRow(4, 3)]]);
    countedFromLock(terms, new Map(), [4]);
    expect(terms.get(4)?.publishedCount).toBe(3);
  });
});
