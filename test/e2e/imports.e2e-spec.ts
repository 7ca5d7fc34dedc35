import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';
import { feedOf } from './helpers/feed-server';
import { runReport, wireDate } from './helpers/imports';

/*
 * The imports resource (docs/api.md "Imports"): administrators only, its
 * validation (refresh, source, URL rules with the webhooks' target checks),
 * uploads of text/calendar bodies bounded at 10 MiB, run reports, the list,
 * a read with its runs, and DELETE with or without the import's events.
 * The defaults of the target rules apply (https only, no internal address),
 * and no instance runs URL imports here (IMPORTS_WORKER=false): the feed
 * fetches are imports-feed.e2e-spec.ts's.
 */

const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/ical', name), 'utf8');

const PUBLIC_FEED = 'https://93.184.216.34/agenda.ics';
const MiB = 1024 * 1024;

describe('imports', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ IMPORTS_WORKER: 'false' });
  });
  afterAll(() => t?.close());
  beforeEach(() => t.reset());

  const admin = () => ({ Authorization: t.auth.administrator, 'Accept-Language': 'en' });
  const createUrl = (body: Record<string, unknown>) =>
    t.http().post(`${API}/imports`).set(admin()).send(body);
  const upload = (calendar: string | Buffer, query = 'source=agenda') =>
    t
      .http()
      .post(`${API}/imports?${query}`)
      .set(admin())
      .set('Content-Type', 'text/calendar; charset=utf-8')
      .send(calendar);

  /** An import record as the API shows it, with the given fields. */
  const record = (fields: Record<string, unknown>) => ({
    id: expect.any(Number),
    url: null,
    refresh: null,
    source: 'agenda',
    language: 'en',
    categories: [],
    status: 'publish',
    trash_removed: true,
    author: '1',
    created_utc: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    next_run_utc: null,
    last_run_utc: null,
    last_outcome: null,
    last_success_utc: null,
    ...fields,
  });
  /** An upload's run report. */
  const uploadRun = (fields: Record<string, unknown>) => runReport('upload', null, fields);

  describe('access', () => {
    it('is for administrators only: 401 without a token, 403 for other roles, on every route', async () => {
      const routes = [
        () => t.http().get(`${API}/imports`),
        () => t.http().get(`${API}/imports/1`),
        () => t.http().delete(`${API}/imports/1`),
        () => t.http().post(`${API}/imports`).send({ url: PUBLIC_FEED, source: 'agenda' }),
        () =>
          t
            .http()
            .post(`${API}/imports?source=agenda`)
            .set('Content-Type', 'text/calendar')
            .send(feedOf('x')),
      ];
      for (const route of routes) {
        const anonymous = await route();
        expect([anonymous.status, anonymous.body]).toEqual([401, errorBody('rest_forbidden', 401)]);
        expect(anonymous.headers['www-authenticate']).toBe('Bearer');
        for (const role of ['contributor', 'editor'] as const) {
          const res = await route().set('Authorization', t.auth[role]);
          expect([role, res.status, res.body]).toEqual([
            role,
            403,
            errorBody('rest_forbidden', 403),
          ]);
        }
      }
      expect(await t.dataSource.query('SELECT id FROM imports')).toEqual([]);
    });
  });

  describe('validation', () => {
    it('refuses a refresh outside the grammar or the bounds of 15m to 30d', async () => {
      for (const refresh of [
        '90s',
        '1w',
        '10m',
        '31d',
        '0h',
        '01h',
        '1h ',
        '1.5h',
        '',
        'h',
        7200,
        '9999999d',
      ]) {
        const res = await createUrl({ url: PUBLIC_FEED, source: 'agenda', refresh });
        expect([refresh, res.status, res.body]).toEqual([
          refresh,
          400,
          errorBody('rest_invalid_param', 400, {
            refresh:
              'refresh must be a whole number followed by m, h or d (such as 30m, 1h or 1d), from 15m to 30d.',
          }),
        ]);
      }
      const ok = await createUrl({ url: PUBLIC_FEED, source: 'agenda', refresh: '15m' });
      expect([ok.status, ok.body.refresh]).toEqual([202, '15m']);
      const days = await createUrl({ url: `${PUBLIC_FEED}?b`, source: 'other', refresh: '2880m' });
      expect([days.status, days.body.refresh]).toEqual([202, '2d']);
    });

    it('refuses a source that is not a bounded slug, and a missing one', async () => {
      const sourceMessage = 'source must be 1 to 64 characters of a-z, 0-9, ".", "_" and "-".';
      for (const [source, message] of [
        ['Agenda', sourceMessage],
        ['my agenda', sourceMessage],
        ['agenda/2', sourceMessage],
        ['', sourceMessage],
        ['a'.repeat(65), 'source is too long.'],
        [42, 'source is not of type string.'],
      ] as const) {
        const res = await createUrl({ url: PUBLIC_FEED, source });
        expect([source, res.status, res.body]).toEqual([
          source,
          400,
          errorBody('rest_invalid_param', 400, { source: message }),
        ]);
      }
      const missing = await createUrl({ url: PUBLIC_FEED });
      expect(missing.body).toEqual(errorBody('rest_missing_callback_param', 400, ['source']));
      const uploadWithout = await upload(feedOf('x'), 'status=draft');
      expect(uploadWithout.body).toEqual(errorBody('rest_missing_callback_param', 400, ['source']));
      const uploadBad = await upload(feedOf('x'), 'source=A%20B');
      expect(uploadBad.body).toEqual(
        errorBody('rest_invalid_param', 400, { source: sourceMessage }),
      );
    });

    it('refuses plain http, other schemes and credentials in the URL', async () => {
      const cases: Array<[unknown, string]> = [
        ['http://calendar.example.org/agenda.ics', 'url must be an https:// URL.'],
        ['ftp://calendar.example.org/agenda.ics', 'url is not a valid URL.'],
        ['https://user:secret@calendar.example.org/agenda.ics', 'url is not a valid URL.'],
        ['agenda.ics', 'url is not a valid URL.'],
        [`https://calendar.example.org/${'a'.repeat(2040)}`, 'url is too long.'],
      ];
      for (const [url, message] of cases) {
        const res = await createUrl({ url, source: 'agenda' });
        expect([url, res.status, res.body]).toEqual([
          url,
          400,
          errorBody('rest_invalid_param', 400, { url: message }),
        ]);
      }
      const missing = await createUrl({ source: 'agenda' });
      expect(missing.body).toEqual(errorBody('rest_missing_callback_param', 400, ['url']));
    });

    it('refuses a URL whose host is an internal address, or a name that resolves to one', async () => {
      for (const url of [
        'https://127.0.0.1/agenda.ics',
        'https://10.1.2.3/agenda.ics',
        'https://192.168.1.1/agenda.ics',
        'https://169.254.169.254/latest/meta-data/',
        'https://[::1]/agenda.ics',
        'https://[::ffff:127.0.0.1]/agenda.ics',
        'https://localhost/agenda.ics',
      ]) {
        const res = await createUrl({ url, source: 'agenda' });
        expect([url, res.status, res.body]).toEqual([
          url,
          400,
          errorBody('rest_invalid_param', 400, {
            url: 'url must not point at a loopback, private, link-local or other internal address.',
          }),
        ]);
      }
      expect(await t.dataSource.query('SELECT id FROM imports')).toEqual([]);
    });

    it('refuses other statuses, unknown categories and languages', async () => {
      const status = await createUrl({ url: PUBLIC_FEED, source: 'agenda', status: 'pending' });
      expect(status.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          status: 'status is not one of the allowed values.',
        }),
      );
      const categories = await createUrl({ url: PUBLIC_FEED, source: 'agenda', categories: [987] });
      expect(categories.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          categories: 'categories refers to a record that does not exist.',
        }),
      );
      const language = await createUrl({ url: PUBLIC_FEED, source: 'agenda', language: 'de' });
      expect([language.status, language.body.code]).toEqual([400, 'rest_invalid_param']);
      const uploaded = await upload(feedOf('x'), 'source=agenda&categories=987');
      expect(uploaded.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          categories: 'categories refers to a record that does not exist.',
        }),
      );
    });

    it('refuses a second URL import of one source (409), not an upload to it', async () => {
      expect((await createUrl({ url: PUBLIC_FEED, source: 'agenda' })).status).toBe(202);
      const again = await createUrl({ url: `${PUBLIC_FEED}?2`, source: 'agenda' });
      expect([again.status, again.body]).toEqual([409, errorBody('rest_import_source_taken', 409)]);
      expect(again.body.message).toBe(
        'Another URL import already writes the source "agenda"; choose another source or delete that import.',
      );
      expect((await upload(feedOf('x'))).status).toBe(201);
    });
  });

  describe('uploads', () => {
    it('refuses a body declared over 10 MiB with 413, unread (a 50 MB body)', async () => {
      const res = await upload(Buffer.alloc(50 * 1000 * 1000, 'a'));
      expect([res.status, res.body]).toEqual([413, errorBody('rest_payload_too_large', 413)]);
      expect(res.body.message).toBe('The request body is larger than the limit of 10 MiB.');
      expect(await t.dataSource.query('SELECT id FROM imports')).toEqual([]);
    });

    it('stops reading a streamed body of unknown length at 10 MiB: 413 for 50 MB sent chunked', async () => {
      const server = t.app.getHttpServer() as import('node:http').Server;
      if (!server.listening)
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const chunk = Buffer.alloc(MiB, 'b');
      const answer = await new Promise<{ status: number; body: string; sent: number }>(
        (resolve, reject) => {
          let sent = 0;
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: `${API}/imports?source=agenda`,
              headers: {
                Authorization: t.auth.administrator,
                'Accept-Language': 'en',
                'Content-Type': 'text/calendar',
                'Transfer-Encoding': 'chunked',
              },
            },
            (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (text: string) => (body += text));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sent }));
            },
          );
          req.on('error', reject);
          const write = () => {
            while (sent < 50) {
              sent++;
              if (!req.write(chunk)) return void req.once('drain', write);
            }
            req.end();
          };
          write();
        },
      );
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual(errorBody('rest_payload_too_large', 413));
      expect(await t.dataSource.query('SELECT id FROM imports')).toEqual([]);
    });

    it('reports a body that is no calendar as refused, and keeps the import with its run', async () => {
      const res = await upload('hello');
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(
        `http://${res.request.url.split('/')[2]}${API}/imports/${res.body.id}`,
      );
      expect(res.body).toEqual(
        record({
          last_run_utc: wireDate,
          last_outcome: 'refused',
          runs: [
            uploadRun({
              outcome: 'refused',
              refusal: { reason: 'not_icalendar', limit: null, found: 5 },
            }),
          ],
        }),
      );
    });

    it('reports the VEVENTs it skipped with their reasons', async () => {
      const calendar = [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'BEGIN:VEVENT',
        'UID:no-start@feed.test',
        'SUMMARY:Zonder begin',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'DTSTART:20270601T180000Z',
        'SUMMARY:Zonder UID',
        'END:VEVENT',
        'END:VCALENDAR',
        '',
      ].join('\r\n');
      const res = await upload(calendar, 'source=agenda&status=draft&trash_removed=false');
      expect(res.status).toBe(201);
      expect(res.body).toEqual(
        record({
          status: 'draft',
          trash_removed: false,
          last_run_utc: wireDate,
          last_outcome: 'imported',
          last_success_utc: wireDate,
          runs: [
            uploadRun({
              skipped_count: 2,
              skipped: [
                {
                  index: 1,
                  uid: 'no-start@feed.test',
                  reason: 'missing_start',
                  detail: expect.any(String),
                },
                { index: 2, uid: null, reason: 'missing_uid', detail: expect.any(String) },
              ],
            }),
          ],
        }),
      );
    });
  });

  describe('list, read, delete', () => {
    it('lists imports paged, reads one with its runs newest first, and deletes it with its reports', async () => {
      const feed = await createUrl({
        url: PUBLIC_FEED,
        source: 'partner',
        refresh: '6h',
        status: 'draft',
      });
      expect(feed.status).toBe(202);
      expect(feed.body).toEqual(
        record({
          url: PUBLIC_FEED,
          refresh: '6h',
          source: 'partner',
          status: 'draft',
          next_run_utc: wireDate,
          runs: [],
        }),
      );
      const first = await upload('nothing', 'source=agenda&language=nl');
      const second = await upload(feedOf('x', 1));
      expect(first.body.language).toBe('nl');

      const page = await t.http().get(`${API}/imports?per_page=2`).set(admin()).expect(200);
      expect(page.headers['x-total']).toBe('3');
      expect(page.body).toEqual({
        imports: [
          record({
            url: PUBLIC_FEED,
            refresh: '6h',
            source: 'partner',
            status: 'draft',
            id: feed.body.id,
            next_run_utc: wireDate,
          }),
          record({
            id: first.body.id,
            language: 'nl',
            last_run_utc: wireDate,
            last_outcome: 'refused',
          }),
        ],
        rest_url: expect.stringContaining(`${API}/imports?per_page=2`),
        next_rest_url: expect.stringContaining('page=2'),
        total: 3,
        total_pages: 2,
      });

      const one = await t.http().get(`${API}/imports/${second.body.id}`).set(admin()).expect(200);
      expect(one.body).toEqual(second.body);
      expect(one.body.runs).toHaveLength(1);
      const missing = await t.http().get(`${API}/imports/999`).set(admin());
      expect([missing.status, missing.body]).toEqual([
        404,
        errorBody('rest-import-not-found', 404),
      ]);

      const removed = await t
        .http()
        .delete(`${API}/imports/${second.body.id}`)
        .set(admin())
        .expect(200);
      const { runs: _runs, ...asItWas } = second.body as Record<string, unknown>;
      expect(removed.body).toEqual(asItWas);
      expect((await t.http().get(`${API}/imports/${second.body.id}`).set(admin())).status).toBe(
        404,
      );
      const runs: unknown[] = await t.dataSource.query(
        'SELECT id FROM import_runs WHERE import_id = ?',
        [second.body.id],
      );
      expect(runs).toEqual([]);
      const events = await t
        .http()
        .delete(`${API}/imports/${first.body.id}?events=all`)
        .set(admin());
      expect(events.body).toEqual(
        errorBody('rest_invalid_param', 400, {
          events: 'events is not one of the allowed values.',
        }),
      );
    });
  });

  // Through the import writer: what the events become.
  describe('with the import writer', () => {
    const titles = async (source: string) => {
      const res = await t
        .http()
        .get(`${API}/events?external_source=${source}&per_page=50&status=publish,draft`)
        .set(admin())
        .expect(200);
      return (res.body.events as Array<{ title: string }>).map((e) => e.title);
    };

    it('imports a Google Calendar export: the series, its moved instance, an all-day and a UTC event', async () => {
      const res = await upload(fixture('google.ics'), 'source=google');
      expect([res.status, res.body.runs[0].outcome, res.body.runs[0].skipped]).toEqual([
        201,
        'imported',
        [],
      ]);
      // The source's events and its series' occurrences, the moved (retitled) instance among them.
      expect(new Set(await titles('google'))).toEqual(
        new Set([
          'Koorrepetitie',
          'Koorrepetitie (generale)',
          'Koningsdag',
          'Lezing: Utrecht in de Middeleeuwen',
        ]),
      );
      // The moved instance is its series' occurrence (no key of its own), on its own day.
      const day = await t
        .http()
        .get(`${API}/events?start_date=2027-04-06&end_date=2027-04-06&status=publish,draft`)
        .set(admin())
        .expect(200);
      expect(
        (day.body.events as Array<{ title: string; start_date: string }>).map((e) => [
          e.title,
          e.start_date,
        ]),
      ).toEqual([['Koorrepetitie (generale)', '2027-04-06 20:00:00']]);
    });

    it('counts created, unchanged and trashed over re-imports, and writes nothing for an unchanged feed', async () => {
      const first = await upload(feedOf('w', 3), 'source=w');
      expect(first.body.runs[0]).toEqual(uploadRun({ created: 3 }));
      const changes = async () =>
        Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM changes'))[0].n);
      const before = await changes();
      const again = await upload(feedOf('w', 3), 'source=w');
      expect(again.body.runs[0]).toEqual(uploadRun({ unchanged: 3 }));
      expect(await changes()).toBe(before);
      const fewer = await upload(feedOf('w', 2), 'source=w');
      expect(fewer.body.runs[0]).toEqual(uploadRun({ unchanged: 2, trashed: 1 }));
      expect((await titles('w')).sort()).toEqual(['w 1', 'w 2']);
    });

    it('deletes an import keeping its events, or trashing them through the events write path', async () => {
      const kept = await upload(feedOf('keep', 2), 'source=keep');
      const trashed = await upload(feedOf('gone', 2), 'source=gone');
      await t.http().delete(`${API}/imports/${kept.body.id}?events=keep`).set(admin()).expect(200);
      await t
        .http()
        .delete(`${API}/imports/${trashed.body.id}?events=trash`)
        .set(admin())
        .expect(200);
      expect((await titles('keep')).sort()).toEqual(['keep 1', 'keep 2']);
      expect(await titles('gone')).toEqual([]);
      const inTrash = await t
        .http()
        .get(`${API}/events?external_source=gone&status=trash`)
        .set(admin())
        .expect(200);
      expect(inTrash.body.total).toBe(2);
    });
  });
});
