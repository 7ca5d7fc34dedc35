import { eventRequests } from './helpers/events';
import { API, createTestApp, TestApp } from './helpers/test-app';

/*
 * A rejected parameter's message names the problem (docs/api.md, "Errors"):
 * a value of the wrong type is reported as such, never as too long or as
 * having too many items, in both languages.
 */

const EVENT = { title: 'T', start_date: '2030-01-01 10:00:00', end_date: '2030-01-01 11:00:00' };

type Messages = Record<'nl' | 'en', string>;

const invalidBody = (name: string, language: 'nl' | 'en', reason: Messages) => ({
  code: 'rest_invalid_param',
  message: `${language === 'en' ? 'Invalid parameter(s)' : 'Ongeldige parameter(s)'}: ${name}`,
  data: { status: 400, params: { [name]: reason[language] } },
});

const NOT_A_LIST = {
  nl: 'recurrence is geen lijst.',
  en: 'recurrence is not of type array.',
};
const NOT_STRINGS = {
  nl: 'recurrence moet een lijst van teksten zijn.',
  en: 'recurrence must be a list of strings.',
};

describe('validation messages', () => {
  let t: TestApp;
  let api: ReturnType<typeof eventRequests>;
  beforeAll(async () => {
    t = await createTestApp();
    api = eventRequests(t);
  });
  afterAll(() => t?.close());

  const LANGUAGES = ['nl', 'en'] as const;

  it.each([
    ['a string', 'RRULE:FREQ=DAILY', NOT_A_LIST],
    ['a number', 7, NOT_A_LIST],
    ['[1]', [1], NOT_STRINGS],
    ['[null]', [null], NOT_STRINGS],
    [
      'a list with one line too long',
      ['RRULE:FREQ=DAILY', `RDATE:${'1'.repeat(2000)}`],
      {
        nl: 'recurrence heeft een element dat te lang is.',
        en: 'recurrence has an item that is too long.',
      },
    ],
  ])(
    'reports recurrence sent as %s by what is wrong with it',
    async (_what, recurrence, reason) => {
      for (const language of LANGUAGES) {
        const res = await api
          .create({ ...EVENT, recurrence }, 'author', `?language=${language}`)
          .expect(400);
        expect(res.body).toEqual(invalidBody('recurrence', language, reason));
      }
    },
  );

  it('reports a list sent for a text parameter as not a string', async () => {
    for (const language of LANGUAGES) {
      for (const query of ['since[]=a', 'since[]=a&since[]=b', `since[]=${'x'.repeat(300)}`]) {
        const res = await t.http().get(`${API}/changes?${query}&language=${language}`).expect(400);
        expect(res.body).toEqual(
          invalidBody('since', language, {
            nl: 'since is geen tekst.',
            en: 'since is not of type string.',
          }),
        );
      }
    }
  });

  it('reports a list item of the wrong value in a list filter', async () => {
    for (const language of LANGUAGES) {
      const res = await t
        .http()
        .get(`${API}/changes?kinds=events,nope&language=${language}`)
        .expect(400);
      expect(res.body).toEqual(
        invalidBody('kinds', language, {
          nl: 'kinds heeft een element dat geen van de toegestane waarden is.',
          en: 'kinds has an item that is not one of the allowed values.',
        }),
      );
    }
  });

  it('keeps the length message for a text of the right type that is too long', async () => {
    for (const language of LANGUAGES) {
      const res = await t
        .http()
        .get(`${API}/changes?since=${'x'.repeat(300)}&language=${language}`)
        .expect(400);
      expect(res.body).toEqual(
        invalidBody('since', language, { nl: 'since is te lang.', en: 'since is too long.' }),
      );
    }
  });

  it('answers a path part that is no valid percent-encoding with 400 naming the path', async () => {
    const paths = [
      '/events/by-slug/%ff',
      '/events/by-slug/%ff.ics',
      '/events/%e2%82',
      '/venues/by-slug/a%zz',
    ];
    for (const language of LANGUAGES) {
      for (const path of paths) {
        const res = await t.http().get(`${API}${path}?language=${language}`).expect(400);
        expect(res.body).toEqual(
          invalidBody('path', language, {
            nl: 'path heeft een deel dat geen geldige procentcodering van UTF-8 is.',
            en: 'path has a part that is not valid percent-encoded UTF-8.',
          }),
        );
      }
    }
  });
});
