import express from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { conditionalGet } from '../../src/common/http/conditional-get';
import {
  JsonBytes,
  jsonBytesMiddleware,
  JsonWriter,
  sendAsBytes,
  shareJson,
} from '../../src/common/http/json-writer';
import { changesPageBytes } from '../../src/changes/changes-page-bytes';

/** Strings that need escaping or are more than one byte in UTF-8. */
const text = fc.oneof(
  fc.string(),
  fc.constantFrom('Café — €12,50', '"quoted" \\ back', 'line\nbreak\t\u0001', '😀 emoji', ''),
);
const leaf = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
/** Members JSON.stringify leaves out or turns into null. */
const odd = fc.constantFrom(undefined, () => 1);
const plain = fc.dictionary(fc.string(), fc.oneof(leaf, odd, fc.array(leaf)), { maxKeys: 6 });

describe('JsonWriter', () => {
  it("keeps a shared value's bytes in memory of their own, not a slice of the shared pool", () => {
    const bytes = JsonWriter.sharedBytes(shareJson({ id: 1, venue: 'Zaal' }));
    expect(bytes.toString()).toBe('{"id":1,"venue":"Zaal"}');
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
  });

  it('writes the bytes of JSON.stringify, whatever is shared and wherever it sits', () => {
    const shared = fc
      .array(plain, { minLength: 1, maxLength: 4 })
      .map((records) => records.map((r) => shareJson(structuredCopy(r))));
    fc.assert(
      fc.property(
        shared,
        fc.array(
          fc.record({
            kind: text,
            id: fc.integer(),
            record: fc.option(plain, { nil: undefined }),
            picks: fc.array(fc.nat(), { maxLength: 5 }),
            list: fc.boolean(),
            sharedRecord: fc.boolean(),
          }),
          { maxLength: 6 },
        ),
        (records, entries) => {
          // Each record embeds shared ones: alone, as a list of them, or beside plain
          // members; and may be shared itself (a feed's cached event record).
          const page = {
            changes: entries.map(({ kind, id, record, picks, list, sharedRecord }) => {
              if (!record) return { kind, id };
              const full = {
                ...record,
                linked: list
                  ? picks.map((p) => records[p % records.length])
                  : records[(picks[0] ?? 0) % records.length],
                after: 'x',
              };
              return { kind, id, record: sharedRecord ? shareJson(full) : full };
            }),
            next_cursor: 'c',
            has_more: entries.length > 3,
          };
          const expected = JSON.stringify(page);
          const bytes = changesPageBytes(page as never).bytes;
          expect(bytes.toString('utf8')).toBe(expected);
          expect(bytes.equals(Buffer.from(expected, 'utf8'))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes documents many times its first buffer, multi-byte text and shared bytes alike', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('😀', 'é', '"', '\n', 'a', '€', '\u0001'), { maxLength: 40 }),
        fc.integer({ min: 1, max: 400 }),
        (pieces, entries) => {
          const long = pieces.join('').repeat(50);
          const venue = shareJson({ id: 1, venue: long, city: 'Zwolle' });
          const page = {
            changes: Array.from({ length: entries }, (_, id) => ({
              kind: 'event',
              id,
              record: {
                id,
                title: long,
                venue,
                organizer: [venue, venue],
                after: long.slice(0, 7),
              },
            })),
            next_cursor: 'c',
            has_more: false,
          };
          const expected = JSON.stringify(page);
          expect(changesPageBytes(page as never).bytes.equals(Buffer.from(expected, 'utf8'))).toBe(
            true,
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reuses the bytes of a shared value instead of stringifying it again', () => {
    const venue = shareJson({ venue: 'Paradiso', city: 'Amsterdam' });
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const write = () => {
        const out = new JsonWriter();
        out.array([1, 2, 3], (i) => out.object({ id: i, venue }));
        return out.bytes().toString('utf8');
      };
      expect(write()).toBe(JSON.stringify([1, 2, 3].map((id) => ({ id, venue }))));
      stringify.mockClear();
      write();
      // Each record is stringified without the venue, and the venue not at all.
      const values = stringify.mock.calls.map(([value]) => value as unknown);
      expect(values.filter((v) => typeof v === 'object')).toHaveLength(3);
      expect(JSON.stringify(values)).not.toContain('Paradiso');
    } finally {
      stringify.mockRestore();
    }
  });

  it('encodes a shared record that embeds shared ones from their bytes, once', () => {
    const venue = shareJson({ venue: 'Paradiso', city: 'Amsterdam' });
    const event = shareJson({ id: 7, title: 'Concert', venue, organizers: [venue] });
    JsonWriter.sharedBytes(venue);
    const stringify = jest.spyOn(JSON, 'stringify');
    let bytes: Buffer;
    let again: Buffer;
    let page: string;
    let firstCalls: unknown[];
    let laterCalls: number;
    try {
      bytes = JsonWriter.sharedBytes(event);
      firstCalls = stringify.mock.calls.map(([value]) => value as unknown);
      stringify.mockClear();
      again = JsonWriter.sharedBytes(event);
      const out = new JsonWriter();
      out.array([event, event], (item) => out.object(item));
      page = out.bytes().toString('utf8');
      laterCalls = stringify.mock.calls.length;
    } finally {
      stringify.mockRestore();
    }
    const json =
      '{"id":7,"title":"Concert","venue":{"venue":"Paradiso","city":"Amsterdam"},' +
      '"organizers":[{"venue":"Paradiso","city":"Amsterdam"}]}';
    expect(bytes.toString('utf8')).toBe(json);
    // The venue's bytes were taken, not stringified again inside the event.
    expect(JSON.stringify(firstCalls)).not.toContain('Paradiso');
    expect(again).toBe(bytes);
    expect(page).toBe(`[${json},${json}]`);
    expect(laterCalls).toBe(0);
  });

  it('writes a nested member that is null or not an object as JSON.stringify does', () => {
    const page = {
      changes: [
        { kind: 'event', id: 1, record: null },
        { kind: 'venue', id: 2, record: 'text' },
      ],
      next_cursor: 'c',
      has_more: false,
    };
    expect(changesPageBytes(page as never).bytes.toString('utf8')).toBe(JSON.stringify(page));
  });

  it('freezes what it shares, all the way down', () => {
    const record = shareJson({ name: 'a', address: { city: 'b' }, list: [{ x: 1 }] });
    expect(Object.isFrozen(record.address)).toBe(true);
    expect(Object.isFrozen(record.list[0])).toBe(true);
  });
});

describe('jsonBytesMiddleware', () => {
  it('sends JsonBytes as a JSON answer that conditionalGet tags like any other', async () => {
    const app = express();
    app.use(conditionalGet);
    app.use(jsonBytesMiddleware);
    const body = { title: 'Café — €12' };
    const bytes = Buffer.from(JSON.stringify(body), 'utf8');
    app.get('/bytes', (_req, res) => void res.json(new JsonBytes(bytes)));
    app.get('/object', (_req, res) => void res.json(body));

    const fromBytes = await request(app).get('/bytes').expect(200);
    const fromObject = await request(app).get('/object').expect(200);
    for (const response of [fromBytes, fromObject]) {
      expect(response.text).toBe(JSON.stringify(body));
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      // Worked out with `openssl dgst -sha256 -binary | basenc --base64url | cut -c1-27`.
      expect(response.headers.etag).toBe('"e5BCAGKOPcs60OMqelzATtApVO8"');
    }
    await request(app)
      .get('/bytes')
      .set('If-None-Match', '"e5BCAGKOPcs60OMqelzATtApVO8"')
      .expect(304);
  });

  it('sends the bytes sendAsBytes named for that very value, and serializes any other value', async () => {
    const app = express();
    app.use(jsonBytesMiddleware);
    const record = { id: 1, title: 'from the object' };
    // Bytes that differ from the object's, so the test sees which were sent.
    const bytes = Buffer.from('{"id":1,"title":"from the bytes"}', 'utf8');
    app.post('/same', (_req, res) => {
      sendAsBytes(res, record, bytes);
      res.status(201).json(record);
    });
    app.post('/replaced', (_req, res) => {
      sendAsBytes(res, record, bytes);
      res.status(201).json({ ...record });
    });

    const same = await request(app).post('/same').expect(201);
    expect(same.text).toBe('{"id":1,"title":"from the bytes"}');
    expect(same.headers['content-type']).toBe('application/json; charset=utf-8');
    const replaced = await request(app).post('/replaced').expect(201);
    expect(replaced.text).toBe(JSON.stringify(record));
  });
});

function structuredCopy<T>(value: T): T {
  // Functions and undefined members stay as they are (structuredClone refuses functions).
  return { ...(value as object) } as T;
}
