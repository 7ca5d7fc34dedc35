import fc from 'fast-check';
import { recordTag } from '../../src/common/http/record-tag';
import { writeAnswer } from '../../src/common/http/write-answer';

/** Strings that need escaping or are more than one byte in UTF-8. */
const text = fc.oneof(
  fc.string(),
  fc.constantFrom('Café — €12,50', '"quoted" \\ back', 'line\nbreak\t\u0001', '😀 emoji', '}', ''),
);
const leaf = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
/** Members JSON.stringify leaves out. */
const left = fc.constant(undefined);
const fields = fc.dictionary(
  fc.string().filter((key) => key !== 'json_ld'),
  fc.oneof(leaf, left, fc.array(leaf), fc.dictionary(fc.string(), leaf, { maxKeys: 3 })),
  { maxKeys: 6 },
);
const jsonLd = fc.oneof(
  fc.dictionary(fc.string(), fc.oneof(leaf, fc.array(leaf)), { maxKeys: 4 }),
  fc.constant(null),
  left,
);

/** What writeAnswer must agree with: the record without json_ld as res.json sends it, and the GET's tag. */
function expectAsDefined(record: Record<string, unknown>): void {
  const { json_ld: _ld, ...answer } = record;
  const result = writeAnswer(record);
  expect(result.answer).toEqual(answer);
  expect(result.answer).not.toHaveProperty('json_ld');
  expect(result.bytes.toString('utf8')).toBe(JSON.stringify(answer));
  expect(result.etag).toBe(recordTag(JSON.stringify(record)));
}

describe('writeAnswer (a write answer serialized once)', () => {
  it('answers the record without JSON-LD and tags the record a GET sends, JSON-LD last', () => {
    fc.assert(
      fc.property(fields, jsonLd, (record, ld) =>
        expectAsDefined({ id: 1, ...record, json_ld: ld }),
      ),
      { numRuns: 500 },
    );
  });

  it('agrees wherever the JSON-LD sits, and without it', () => {
    fc.assert(
      fc.property(fields, jsonLd, fields, (before, ld, after) =>
        expectAsDefined({ ...before, json_ld: ld, ...after }),
      ),
      { numRuns: 500 },
    );
    expectAsDefined({ json_ld: { '@type': 'Event' } });
    expectAsDefined({ gone: undefined, json_ld: { '@type': 'Event' } });
    expectAsDefined({});
  });

  it('pins the bytes of an event-like record with text of more than one byte per character', () => {
    const record = {
      id: 7,
      title: 'Café — €12,50 😀',
      cost: ['€10', '€25'],
      json_ld: { '@type': 'Event', name: 'Café — €12,50 😀' },
    };
    const result = writeAnswer(record);
    expect(result.bytes.toString('utf8')).toBe(
      '{"id":7,"title":"Café — €12,50 😀","cost":["€10","€25"]}',
    );
    expect(result.bytes.length).toBe(Buffer.byteLength(result.bytes.toString('utf8')));
    expect(result.etag).toBe(recordTag(record));
  });
});
