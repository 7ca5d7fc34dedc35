import fc from 'fast-check';
import { idList } from '../../src/events/event-page';

/*
 * The link IDs of a list page come as `<count>:<sum>:<GROUP_CONCAT>`, and
 * GROUP_CONCAT cuts its result at group_concat_max_len, possibly inside an
 * ID. For any IDs and any cut, idList answers the IDs exactly or nothing
 * (the caller then reads the links by ID): never a wrong list.
 */

const wire = (ids: number[], keep = Infinity) =>
  `${ids.length}:${ids.reduce((a, b) => a + b, 0)}:${ids.join(',').slice(0, keep)}`;

it('reads an uncut list as it was sent', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 1, max: 2_000_000_000 }), { minLength: 1, maxLength: 200 }),
      (ids) => {
        expect(idList(wire(ids))).toEqual(ids);
      },
    ),
  );
});

it('answers a list cut anywhere with the whole list or nothing', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 1, max: 2_000_000_000 }), { minLength: 1, maxLength: 200 }),
      fc.nat(),
      (ids, at) => {
        const keep = at % ids.join(',').length;
        expect(idList(wire(ids, keep))).toBeUndefined();
      },
    ),
  );
});

it('reads no links from NULL (MariaDB, none) or a count of 0 (SQLite)', () => {
  expect(idList(null)).toEqual([]);
  expect(idList('0::')).toEqual([]);
  expect(idList('0:')).toEqual([]);
});
