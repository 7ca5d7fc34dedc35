import { recordTag } from '../../src/common/http/record-tag';

/*
 * Known answers computed by hand, outside the code under test:
 *   printf '{"id":7,"title":"Café"}' | openssl dgst -sha256 -binary | base64 \
 *     | tr '+/' '-_' | cut -c1-27
 */
const CAFE_JSON = '{"id":7,"title":"Café"}';
const CAFE_TAG = '"mGvgCtn6cpgcGmf8dxESU_3eMo4"';
/** The same for zero bytes. */
const EMPTY_TAG = '"47DEQpj8HBSa-_TImW-5JCeuQeR"';

describe('recordTag (the one ETag of a record)', () => {
  it('hashes the JSON bytes res.json sends for a record', () => {
    expect(recordTag({ id: 7, title: 'Café' })).toBe(CAFE_TAG);
  });

  it('gives the same tag for the record and for the bytes a GET sends (string or UTF-8 buffer)', () => {
    expect(recordTag(CAFE_JSON)).toBe(CAFE_TAG);
    expect(recordTag(Buffer.from(CAFE_JSON, 'utf8'))).toBe(CAFE_TAG);
  });

  it('hashes bytes as they are (an empty body, an iCalendar body)', () => {
    expect(recordTag('')).toBe(EMPTY_TAG);
    expect(recordTag(Buffer.alloc(0))).toBe(EMPTY_TAG);
    expect(recordTag('BEGIN:VCALENDAR\r\n')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('moves with any change of the record, member order included', () => {
    expect(recordTag({ title: 'Café', id: 7 })).not.toBe(CAFE_TAG);
    expect(recordTag({ id: 7, title: 'Cafe' })).not.toBe(CAFE_TAG);
  });
});
