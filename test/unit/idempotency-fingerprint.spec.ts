import { canonicalJson, isValidIdempotencyKey, sha256 } from '../../src/idempotency/fingerprint';

describe('idempotency fingerprint', () => {
  it('gives bodies equal after parsing the same canonical JSON', () => {
    const a = JSON.parse('{"b":1,"a":{"y":[1,{"q":2,"p":1}],"x":null},"c":"é"}') as unknown;
    const b = JSON.parse(
      '{ "c": "é", "a": { "x": null, "y": [1, {"p":1, "q":2}] }, "b": 1 }',
    ) as unknown;
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[1,{"p":1,"q":2}]},"b":1,"c":"é"}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
  });

  it('tells apart what parsing tells apart: array order, types, nesting', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: { b: 1 } })).not.toBe(canonicalJson({ 'a.b': 1 }));
    expect(canonicalJson(null)).toBe('null');
  });

  it('keeps hash parts apart', () => {
    expect(sha256('POST', '/ab')).not.toBe(sha256('POST/', 'ab'));
    expect(sha256('x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('accepts 1–255 visible ASCII characters only', () => {
    expect(isValidIdempotencyKey('a')).toBe(true);
    expect(isValidIdempotencyKey('!~' + 'x'.repeat(253))).toBe(true);
    for (const bad of ['', ' ', 'a b', 'x'.repeat(256), 'é', 'a\tb', '\u007f']) {
      expect(isValidIdempotencyKey(bad)).toBe(false);
    }
  });
});
