import fc from 'fast-check';
import { compareTermNames } from '../../src/terms/term.mapper';

/*
 * Embedded terms are sorted with one shared collator instead of
 * `localeCompare` per comparison: the order must be the very same.
 */
describe('compareTermNames', () => {
  const byLocaleCompare = (a: { name: string; id: number }, b: { name: string; id: number }) =>
    a.name.localeCompare(b.name) || a.id - b.id;
  const sign = (n: number) => Math.sign(n);

  it('orders names as localeCompare does, accents, case and digits included', () => {
    const names = [
      'Éclair',
      'eclair',
      'Eclair',
      'ëcho',
      'Zee',
      'zee',
      'a10',
      'a2',
      'Ça',
      'ca',
      '',
      ' x',
    ];
    for (const a of names) {
      for (const b of names) {
        expect(sign(compareTermNames({ name: a, id: 1 }, { name: b, id: 2 }))).toBe(
          sign(byLocaleCompare({ name: a, id: 1 }, { name: b, id: 2 })),
        );
      }
    }
  });

  it('sorts any list of terms exactly as before', () => {
    const term = fc.record({
      name: fc.string({ maxLength: 8 }),
      id: fc.integer({ min: 1, max: 50 }),
    });
    fc.assert(
      fc.property(fc.array(term, { maxLength: 12 }), (terms) => {
        expect([...terms].sort(compareTermNames)).toEqual([...terms].sort(byLocaleCompare));
      }),
    );
  });
});
