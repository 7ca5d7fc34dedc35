import type { EntityManager } from 'typeorm';
import type { ChangeKind } from '../../src/writes/change-kinds';
import { ApiError } from '../../src/common/errors/api-error';
import type { RequestContext } from '../../src/common/http/request-context';
import {
  RecordReader,
  RecordReaders,
  RecordsById,
} from '../../src/common/records/record-readers';

const ctx: RequestContext = { language: 'en', apiUrl: 'http://api.test/wp-json/calendar/v1' };

/** A reader that answers `{ id, kind }` for every ID and logs its calls. */
function fakeReader(name: string, calls: string[]): RecordReader {
  const records = (ids: number[]): RecordsById =>
    new Map(ids.map((id) => [id, { id, reader: name }]));
  return {
    feed: (ids) => {
      calls.push(`${name}:${ids.join(',')}`);
      return Promise.resolve(records(ids));
    },
    edit: (_manager, ids) => Promise.resolve(records(ids)),
    get: (id) => Promise.resolve({ id: 7, title: 'Café', asked: id }),
  };
}

describe('RecordReaders (the one registry of record readers)', () => {
  it('gives each kind the reader it registered, and refuses a second one or an unknown kind', () => {
    const readers = new RecordReaders();
    const events = fakeReader('event', []);
    readers.register(['event'], events);
    expect(readers.of('event')).toBe(events);
    expect(() => readers.register(['event'], fakeReader('again', []))).toThrow(/event/);
    expect(() => readers.of('venue')).toThrow(/venue/);
  });

  it('reads kinds that share a reader in one batch, and each reader once', async () => {
    const calls: string[] = [];
    const readers = new RecordReaders();
    readers.register(['event'], fakeReader('event', calls));
    readers.register(['category', 'tag'], fakeReader('term', calls));
    const ids = new Map<ChangeKind, number[]>([
      ['category', [1, 2]],
      ['event', [9]],
      ['tag', [3]],
    ]);
    const records = await readers.readAll(ids, (reader, some) => reader.feed(some, ctx));
    expect(calls.sort()).toEqual(['event:9', 'term:1,2,3']);
    expect(records.get('tag')).toBe(records.get('category'));
    expect([...(records.get('category')?.keys() ?? [])]).toEqual([1, 2, 3]);
    expect(records.get('event')?.get(9)).toEqual({ id: 9, reader: 'event' });
  });

  it('splits a reader\'s IDs into batches and reads them one after another when asked', async () => {
    const calls: string[] = [];
    const readers = new RecordReaders();
    readers.register(['event'], fakeReader('event', calls));
    readers.register(['venue'], fakeReader('venue', calls));
    let running = 0;
    let most = 0;
    const records = await readers.readAll(
      new Map<ChangeKind, number[]>([
        ['event', [1, 2, 3, 4, 5]],
        ['venue', [6]],
      ]),
      async (reader, some) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        return reader.edit({} as EntityManager, some, ctx);
      },
      { sequential: true, batch: 2 },
    );
    expect(most).toBe(1);
    expect(records.get('event')?.size).toBe(5);
    expect(records.get('venue')?.size).toBe(1);
  });

  it('leaves kinds without IDs out, reading nothing for them', async () => {
    const calls: string[] = [];
    const readers = new RecordReaders();
    readers.register(['event'], fakeReader('event', calls));
    const records = await readers.readAll(new Map([['event', []]]), (r, some) => r.feed(some, ctx));
    expect(calls).toEqual([]);
    expect(records.has('event')).toBe(false);
  });

  it('groups IDs by kind in their order', () => {
    const ids = RecordReaders.idsByKind([
      { kind: 'tag', id: 3 },
      { kind: 'event', id: 1 },
      { kind: 'tag', id: 2 },
    ]);
    expect([...ids]).toEqual([
      ['tag', [3, 2]],
      ['event', [1]],
    ]);
  });

  describe('tagOf', () => {
    it('is the record tag of what a GET answers (known answer, see record-tag.spec.ts)', async () => {
      const readers = new RecordReaders();
      readers.register(['event'], {
        ...fakeReader('event', []),
        get: () => Promise.resolve({ id: 7, title: 'Café' }),
      });
      await expect(readers.tagOf('event', 7, ctx)).resolves.toBe('"mGvgCtn6cpgcGmf8dxESU_3eMo4"');
    });

    it('is undefined when the GET answers an error, and passes other failures on', async () => {
      const readers = new RecordReaders();
      readers.register(['venue'], {
        ...fakeReader('venue', []),
        get: () => Promise.reject(new ApiError('rest_precondition_failed')),
      });
      readers.register(['organizer'], {
        ...fakeReader('organizer', []),
        get: () => Promise.reject(new Error('database down')),
      });
      await expect(readers.tagOf('venue', 1, ctx)).resolves.toBeUndefined();
      await expect(readers.tagOf('organizer', 1, ctx)).rejects.toThrow('database down');
    });
  });
});
