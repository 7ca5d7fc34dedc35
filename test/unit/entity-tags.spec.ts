import {
  entityTag,
  matchHolds,
  noneMatchHolds,
  parseTagList,
} from '../../src/common/http/entity-tags';

describe('entityTag', () => {
  it('is a strong tag of the bytes: equal bodies, equal tags; any change, another tag', () => {
    const tag = entityTag('{"id":1}');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(entityTag(Buffer.from('{"id":1}'))).toBe(tag);
    expect(entityTag('{"id":2}')).not.toBe(tag);
    expect(entityTag('{"id":1} ')).not.toBe(tag);
  });

  it('is `"` + the first 27 characters of the base64url SHA-256 + `"` (docs/api.md §11)', () => {
    // Worked out with `printf %s '<body>' | openssl dgst -sha256 -binary | basenc --base64url | cut -c1-27`.
    expect(entityTag('{"id":1}')).toBe('"A3ySFO73TMOIfzpPCFtOF9digNr"');
    expect(entityTag('{"id":2}')).toBe('"nn5lRTc5u8ZLoVXu0Yo3vV-xGWx"');
    expect(entityTag('')).toBe('"47DEQpj8HBSa-_TImW-5JCeuQeR"');
    expect(entityTag(Buffer.from('{"title":"Café — €12"}'))).toBe('"e5BCAGKOPcs60OMqelzATtApVO8"');
  });
});

describe('parseTagList', () => {
  it('reads one tag, a list, weak tags and *', () => {
    expect(parseTagList('"a"')).toEqual([{ weak: false, opaque: '"a"' }]);
    expect(parseTagList(' "a" ,W/"b",  "c"')).toEqual([
      { weak: false, opaque: '"a"' },
      { weak: true, opaque: '"b"' },
      { weak: false, opaque: '"c"' },
    ]);
    expect(parseTagList(' * ')).toBe('*');
    // Two header lines are one list.
    expect(parseTagList(['"a"', '"b"'])).toEqual([
      { weak: false, opaque: '"a"' },
      { weak: false, opaque: '"b"' },
    ]);
  });

  it('keeps commas inside a quoted tag and drops malformed members', () => {
    expect(parseTagList('"a,b", "c"')).toEqual([
      { weak: false, opaque: '"a,b"' },
      { weak: false, opaque: '"c"' },
    ]);
    expect(parseTagList('abc, "c", w/"d"')).toEqual([{ weak: false, opaque: '"c"' }]);
    expect(parseTagList('abc')).toEqual([]);
    expect(parseTagList('"a" "b"')).toEqual([]);
  });

  it('is undefined without a value', () => {
    expect(parseTagList(undefined)).toBeUndefined();
    expect(parseTagList('')).toBeUndefined();
    expect(parseTagList('  ')).toBeUndefined();
  });
});

describe('noneMatchHolds (weak comparison)', () => {
  it('matches a listed tag with or without W/, and *', () => {
    expect(noneMatchHolds(parseTagList('"a"'), '"a"')).toBe(true);
    expect(noneMatchHolds(parseTagList('W/"a"'), '"a"')).toBe(true);
    expect(noneMatchHolds(parseTagList('"b", "a"'), '"a"')).toBe(true);
    expect(noneMatchHolds(parseTagList('*'), '"a"')).toBe(true);
    expect(noneMatchHolds(parseTagList('"a"'), 'W/"a"')).toBe(true);
  });

  it('does not match other tags, malformed ones or no header', () => {
    expect(noneMatchHolds(parseTagList('"b"'), '"a"')).toBe(false);
    expect(noneMatchHolds(parseTagList('a'), '"a"')).toBe(false);
    expect(noneMatchHolds(parseTagList('"A"'), '"a"')).toBe(false);
    expect(noneMatchHolds(undefined, '"a"')).toBe(false);
  });
});

describe('matchHolds (strong comparison)', () => {
  it('matches an equal strong tag in a list, and *', () => {
    expect(matchHolds(parseTagList('"a"')!, '"a"')).toBe(true);
    expect(matchHolds(parseTagList('"x", "a"')!, '"a"')).toBe(true);
    expect(matchHolds('*', '"a"')).toBe(true);
  });

  it('never matches a weak tag on either side, nor another tag', () => {
    expect(matchHolds(parseTagList('W/"a"')!, '"a"')).toBe(false);
    expect(matchHolds(parseTagList('"a"')!, 'W/"a"')).toBe(false);
    expect(matchHolds(parseTagList('"b"')!, '"a"')).toBe(false);
    expect(matchHolds(parseTagList('a')!, '"a"')).toBe(false);
  });
});
