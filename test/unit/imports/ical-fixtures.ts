import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImportItem } from '../../../src/imports/import-item';

/** A hand-written feed of test/fixtures/ical. */
export function fixture(name: string): Buffer {
  return readFileSync(join(__dirname, '..', '..', 'fixtures', 'ical', name));
}

/** A venue or organizer key: prefix and 22 base64url characters. */
export const aKey = (prefix: 'loc' | 'org') =>
  expect.stringMatching(new RegExp(`^${prefix}-[\\w-]{22}$`));
const aHash = expect.stringMatching(/^[\w-]{43}$/);

/** An expected item: the fields an item has when its VEVENT does not say otherwise. */
export function item(
  fields: Partial<ImportItem> & Pick<ImportItem, 'uid' | 'title' | 'start' | 'end'>,
): ImportItem {
  return {
    recurrenceId: null,
    description: '',
    allDay: false,
    recurrence: [],
    venue: null,
    organizer: null,
    categories: [],
    url: null,
    status: 'confirmed',
    visibility: 'public',
    sequence: 0,
    lastModified: null,
    hash: aHash,
    ...fields,
  } as ImportItem;
}

/** A wall-clock time in a zone. */
export const at = (local: string, timezone: string) => ({ local, timezone });
