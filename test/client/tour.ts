import createClient from 'openapi-fetch';
import type { components, paths } from './.generated/calendar-api';

/*
 * What an integrator writes with a client generated from {api}/doc
 * (openapi-typescript types + openapi-fetch). This file is type-checked
 * against types generated from the live document by
 * test/e2e/generated-client.e2e-spec.ts, then run against the service:
 * if /doc and the service disagree, either the compile or the run fails.
 */

type Event = components['schemas']['EventRecordDto'];
type ErrorBody = components['schemas']['ErrorBodyDto'];

export function calendarClient(baseUrl: string, token?: string) {
  return createClient<paths>({
    baseUrl,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
}

function must<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw new Error(`${result.response.status}: ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

/** Creates, reads, lists with filters and meets errors, as typed by the generated client. */
export async function tour(baseUrl: string, token: string) {
  const api = calendarClient(baseUrl, token);
  const anonymous = calendarClient(baseUrl);

  const category = must(await api.POST('/categories', { body: { name: 'Jazz' } }));
  const venue = must(
    await api.POST('/venues', { body: { venue: 'Paradiso', city: 'Amsterdam', geo_lat: 52.36 } }),
  );
  const created = await api.POST('/events', {
    body: {
      title: 'Jazz in het park',
      start_date: '2030-06-01 20:00:00',
      end_date: 1906585200,
      venue: venue.id,
      organizer: [{ organizer: 'Stichting Jazz', email: 'info@jazz.example' }],
      categories: [category.id],
      image: 'https://example.org/poster.jpg',
      cost: '€ 12,50',
    },
  });
  const event: Event = must(created);
  const location = created.response.headers.get('Location');

  const read = must(
    await anonymous.GET('/events/{id}', {
      params: { path: { id: event.id }, query: { language: 'en' } },
    }),
  );
  const bySlug = must(
    await anonymous.GET('/events/by-slug/{slug}', { params: { path: { slug: event.slug } } }),
  );
  const listed = await anonymous.GET('/events', {
    params: {
      query: {
        start_date: '2030-06-01',
        end_date: '2030-06-30',
        venue: [venue.id],
        categories: [String(category.id)],
        per_page: 5,
      },
    },
  });
  const list = must(listed);

  const missing = await anonymous.GET('/events/{id}', { params: { path: { id: 999 } } });
  const invalid = await api.POST('/events', {
    body: { title: 'Zonder datum', start_date: 'morgen', end_date: '2030-06-01' },
  });
  const unauthenticated = await anonymous.POST('/tags', { body: { name: 'Blues' } });
  const errors: Array<[number, ErrorBody | undefined]> = [
    [missing.response.status, missing.error],
    [invalid.response.status, invalid.error],
    [unauthenticated.response.status, unauthenticated.error],
  ];

  return {
    event,
    location,
    read: { id: read.id, title: read.title, venue: read.venue, cost: read.cost_details },
    bySlugId: bySlug.id,
    list: {
      ids: list.events.map((e) => e.id),
      total: list.total,
      xTotal: listed.response.headers.get('X-Total'),
    },
    errors: errors.map(([status, body]) => ({
      status,
      code: body?.code,
      params: body?.data.params,
    })),
  };
}
