import { languageFromAcceptHeader, otherLanguage, resolveLanguage } from '../../src/i18n/language';
import { languagesOf, pickTranslation, translationsOf } from '../../src/i18n/translation';

describe('languageFromAcceptHeader', () => {
  it.each([
    ['en', 'en'],
    ['nl-BE', 'nl'],
    ['fr, en-GB;q=0.8, nl;q=0.5', 'en'],
    ['nl;q=0.4, en;q=0.9', 'en'],
    ['EN-us', 'en'],
    ['fr, de', undefined],
    ['en;q=0, nl;q=0.1', 'nl'],
    ['en;q=0', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s', (header, expected) => {
    expect(languageFromAcceptHeader(header)).toBe(expected);
  });
});

describe('resolveLanguage', () => {
  it('prefers the parameter, then the header, then the default', () => {
    expect(
      resolveLanguage({ parameter: 'en', acceptLanguage: 'nl', defaultLanguage: 'nl' }),
    ).toEqual({ ok: true, language: 'en' });
    expect(
      resolveLanguage({ parameter: undefined, acceptLanguage: 'en-GB', defaultLanguage: 'nl' }),
    ).toEqual({ ok: true, language: 'en' });
    expect(
      resolveLanguage({ parameter: undefined, acceptLanguage: 'fr', defaultLanguage: 'nl' }),
    ).toEqual({ ok: true, language: 'nl' });
  });

  it('reports an unsupported parameter with the language for the error message', () => {
    expect(
      resolveLanguage({ parameter: 'fr', acceptLanguage: 'en', defaultLanguage: 'nl' }),
    ).toEqual({ ok: false, fallback: 'en', value: 'fr' });
    expect(
      resolveLanguage({ parameter: ['en'], acceptLanguage: undefined, defaultLanguage: 'nl' }),
    ).toEqual({ ok: false, fallback: 'nl', value: ['en'] });
    expect(
      resolveLanguage({ parameter: '', acceptLanguage: undefined, defaultLanguage: 'en' }),
    ).toEqual({ ok: false, fallback: 'en', value: '' });
  });

  it('pairs the two languages', () => {
    expect(otherLanguage('nl')).toBe('en');
    expect(otherLanguage('en')).toBe('nl');
  });
});

describe('translations', () => {
  const nl = { language: 'nl', title: 'Hallo' };
  const en = { language: 'en', title: 'Hello' };

  it('picks the requested language, else the other one', () => {
    expect(pickTranslation([nl, en], 'en')).toBe(en);
    expect(pickTranslation([nl], 'en')).toBe(nl);
    expect(pickTranslation([], 'en')).toBeUndefined();
  });

  it('lists languages and edit texts in the order nl, en', () => {
    expect(languagesOf([en, nl])).toEqual(['nl', 'en']);
    expect(Object.keys(translationsOf([en, nl], (t) => t.title))).toEqual(['nl', 'en']);
    expect(translationsOf([en], (t) => t.title)).toEqual({ en: 'Hello' });
  });
});
