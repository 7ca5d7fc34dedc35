import {
  costDetails,
  costFromStorage,
  costStrings,
  costToStorage,
  formatCost,
  parseAmount,
} from '../../src/events/cost';

const details = (...strings: string[]) => costDetails(strings);

describe('event cost', () => {
  describe('costStrings (what is stored of an input)', () => {
    it.each([
      ['20$', ['20$']],
      ['  €10 ', ['€10']],
      [
        ['10', ' 20 EUR '],
        ['10', '20 EUR'],
      ],
      [15, ['15']],
      [
        ['5,50', 7.5],
        ['5,50', '7.5'],
      ],
      [1.234, ['1.23']],
      ['Free', ['Free']],
      ['', []],
      [null, []],
      [[], []],
      [['', '10'], ['10']],
    ])('%j → %j', (input, stored) => {
      expect(costStrings(input)).toEqual(stored);
    });

    it.each([
      ['no amount here'],
      ['€'],
      [true],
      [{ value: 10 }],
      [[['10']]],
      [-5],
      [Number.NaN],
      ['9'.repeat(256)],
      [Array.from({ length: 101 }, () => '1')],
    ])('rejects %j', (input) => {
      expect(costStrings(input)).toBeUndefined();
    });
  });

  describe('parseAmount', () => {
    it.each([
      ['10', 10],
      ['5,50', 5.5],
      ['6.5', 6.5],
      ['1.000', 1000],
      ['1,000', 1000],
      ['1.000,50', 1000.5],
      ['1,000.50', 1000.5],
      ['1.234.567', 1234567],
      ['12,345', 12345],
      ['0,99', 0.99],
      ['2.999', 2999],
    ])('%s = %d', (text, value) => {
      expect(parseAmount(text)).toBe(value);
    });
  });

  describe('costDetails', () => {
    it('reads a postfix dollar', () => {
      expect(details('20$')).toEqual({
        currency_symbol: '$',
        currency_code: 'USD',
        currency_position: 'postfix',
        values: [20],
      });
    });

    it('reads a prefix euro and a pound', () => {
      expect(details('€10')).toMatchObject({
        currency_symbol: '€',
        currency_code: 'EUR',
        currency_position: 'prefix',
      });
      expect(details('£ 7')).toMatchObject({
        currency_symbol: '£',
        currency_code: 'GBP',
        currency_position: 'prefix',
      });
    });

    it('reads a range without a symbol', () => {
      expect(details('10 - 20')).toEqual({
        currency_symbol: '',
        currency_code: '',
        currency_position: '',
        values: [10, 20],
      });
    });

    it('keeps a symbol it cannot map, without a code', () => {
      expect(details('¥500')).toEqual({
        currency_symbol: '¥',
        currency_code: '',
        currency_position: 'prefix',
        values: [500],
      });
    });

    it('takes a three-letter code as symbol and code', () => {
      expect(details('10 - 20 CHF')).toEqual({
        currency_symbol: 'CHF',
        currency_code: 'CHF',
        currency_position: 'postfix',
        values: [10, 20],
      });
    });

    it('sorts the values of every string ascending and without repeats; free is 0', () => {
      expect(details('€30', '10 – 20', 'gratis', '20', '5,50').values).toEqual([
        0, 5.5, 10, 20, 30,
      ]);
    });

    it('takes the first symbol found; its side is where the number is', () => {
      expect(details('10 - €20', '30$')).toMatchObject({
        currency_symbol: '€',
        currency_position: 'prefix',
      });
    });

    it('is empty without strings', () => {
      expect(details()).toEqual({
        currency_symbol: '',
        currency_code: '',
        currency_position: '',
        values: [],
      });
    });
  });

  describe('formatCost', () => {
    const show = (language: 'Free' | 'Gratis', ...strings: string[]) =>
      formatCost(costDetails(strings), language);

    it.each([
      [['20$'], '20$'],
      [['€10'], '€10'],
      [['10 - 20'], '10 – 20'],
      [['5,50'], '5.50'],
      [['€6.5'], '€6.50'],
      [['0', '30$'], 'Free – 30$'],
      [['€ 0', '€30', '15'], 'Free – €30'],
      [['Free'], 'Free'],
      [['10 CHF', '20'], '10 CHF – 20 CHF'],
      [['€10', '€10'], '€10'],
      [[], ''],
    ])('%j → %s', (strings, shown) => {
      expect(show('Free', ...strings)).toBe(shown);
    });

    it('writes free in the given language', () => {
      expect(show('Gratis', '€0', '€30')).toBe('Gratis – €30');
    });
  });

  it('stores the strings as JSON and reads them back; anything else reads as no cost', () => {
    expect(costToStorage(['€10', '5,50'])).toBe('["€10","5,50"]');
    expect(costToStorage([])).toBeNull();
    expect(costFromStorage('["€10","5,50"]')).toEqual(['€10', '5,50']);
    expect(costFromStorage(null)).toEqual([]);
    expect(costFromStorage('not json')).toEqual([]);
    expect(costFromStorage('{"a":1}')).toEqual([]);
  });
});
