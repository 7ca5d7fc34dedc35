import {
  parseBoolean,
  parseDecimal,
  parseId,
  parseIdList,
  parseInteger,
  parseList,
} from '../../src/common/validation/input-parsing';

describe('parseBoolean', () => {
  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['true', true],
    ['FALSE', false],
    ['1', true],
    ['0', false],
    ['yes', true],
    [' no ', false],
  ])('%p → %p', (input, expected) => expect(parseBoolean(input)).toBe(expected));

  it.each([['maybe'], [2], [null], [undefined], [''], [[true]]])('rejects %p', (input) => {
    expect(parseBoolean(input)).toBeUndefined();
  });
});

describe('parseId', () => {
  it.each([
    [1, 1],
    ['42', 42],
    ['007', 7],
    [' 5 ', 5],
    [2147483647, 2147483647],
  ])('%p → %p', (input, expected) => {
    expect(parseId(input)).toBe(expected);
  });

  it.each([
    ['-3'],
    ['1e3'],
    ['0'],
    [0],
    [2 ** 31],
    ['2147483648'],
    ['1.5'],
    [1.5],
    ['abc'],
    [''],
    [null],
  ])('rejects %p', (input) => {
    expect(parseId(input)).toBeUndefined();
  });
});

describe('parseInteger and parseDecimal', () => {
  it('reads integers with an optional sign', () => {
    expect(parseInteger('-12')).toBe(-12);
    expect(parseInteger(3)).toBe(3);
    expect(parseInteger('1.0')).toBeUndefined();
    expect(parseInteger(Number.MAX_SAFE_INTEGER + 2)).toBeUndefined();
  });

  it('reads plain decimals only', () => {
    expect(parseDecimal('52.37')).toBe(52.37);
    expect(parseDecimal('-4.9')).toBe(-4.9);
    expect(parseDecimal(Infinity)).toBeUndefined();
    expect(parseDecimal('1e5')).toBeUndefined();
    expect(parseDecimal('52,37')).toBeUndefined();
  });
});

describe('parseList and parseIdList', () => {
  it('accepts an array, repeated keys and comma lists, dropping empty items', () => {
    expect(parseList(['1', '2'])).toEqual(['1', '2']);
    expect(parseList('1, 2,,3')).toEqual(['1', '2', '3']);
    expect(parseList(['1,2', '3'])).toEqual(['1', '2', '3']);
    expect(parseList(7)).toEqual([7]);
    expect(parseList('')).toEqual([]);
  });

  it('rejects objects, booleans and nested arrays', () => {
    expect(parseList({ a: 1 })).toBeUndefined();
    expect(parseList(true)).toBeUndefined();
    expect(parseList([['1']])).toBeUndefined();
  });

  it('reads ID lists only when every item is an ID', () => {
    expect(parseIdList('3,1,3')).toEqual([3, 1, 3]);
    expect(parseIdList(['1', 'x'])).toBeUndefined();
    expect(parseIdList('0')).toBeUndefined();
  });
});
