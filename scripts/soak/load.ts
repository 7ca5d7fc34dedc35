import autocannon from 'autocannon';
import { API, Dataset, eventBody, pick, WORDS } from './dataset';

/** Live counts, read by the sampler while the load runs. */
export interface Counters {
  responses: number;
  non2xx: number;
  status5xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Status → count, for the final report. */
  byStatus: Map<number, number>;
}

type Context = { created?: number };

/** autocannon 8 also calls `onResponse` per request (not in the bench's declaration). */
interface MixRequest extends autocannon.Request {
  onResponse?: (status: number, body: string, context: Context) => void;
}

let serial = 0;

/**
 * One cycle per connection, 12 requests: 8 reads (list, list by category,
 * search, single ×2, venues, tags, organizers), 1 update, 1 create, 1 force
 * delete of what that create made, 1 list again. The dataset stays the same
 * size, so memory should not grow with it.
 */
export function requestMix(data: Dataset, token: string): MixRequest[] {
  // A fresh object each time: autocannon writes Content-Length into the headers it is given.
  const auth = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const event = () => `${API}/events/${pick(data.events)}`;
  // Only pages that surely exist: a page past the end is a 404 (docs/api.md §5), not a soak finding.
  const pages = Math.max(1, Math.floor(data.events.length / 10));
  const get = (path: () => string): MixRequest => ({
    method: 'GET',
    setupRequest: (req) => ({ ...req, method: 'GET', path: path() }),
  });
  return [
    get(() => `${API}/events?per_page=10&page=${1 + Math.floor(Math.random() * pages)}`),
    get(event),
    get(() => `${API}/events?search=${pick(WORDS)}&per_page=10`),
    get(() => `${API}/events?categories=${pick(data.categories)}&per_page=10`),
    {
      method: 'POST',
      setupRequest: (req) => ({
        ...req,
        method: 'POST',
        path: event(),
        headers: auth(),
        body: JSON.stringify({ description: `<p>soak update ${++serial}</p>` }),
      }),
    },
    get(event),
    get(() => `${API}/venues?per_page=10`),
    {
      method: 'POST',
      setupRequest: (req) => ({
        ...req,
        method: 'POST',
        path: `${API}/events`,
        headers: auth(),
        body: JSON.stringify(eventBody(1000 + ++serial, data)),
      }),
      onResponse: (status, body, context) => {
        context.created = status === 201 ? (JSON.parse(body) as { id: number }).id : undefined;
      },
    },
    get(() => `${API}/tags?per_page=20`),
    {
      method: 'DELETE',
      // Without an event from the create before it (it failed), a plain read instead.
      setupRequest: (req, context) => {
        const created = (context as Context).created;
        (context as Context).created = undefined;
        return created === undefined
          ? { ...req, method: 'GET', path: event(), headers: {} }
          : {
              ...req,
              method: 'DELETE',
              path: `${API}/events/${created}?force=true`,
              headers: auth(),
            };
      },
    },
    get(() => `${API}/organizers?per_page=10`),
    get(() => `${API}/events?per_page=25`),
  ];
}

export function runLoad(options: {
  port: number;
  seconds: number;
  connections: number;
  requests: MixRequest[];
  counters: Counters;
}): Promise<autocannon.Result> {
  const { counters } = options;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${options.port}`,
        connections: options.connections,
        duration: options.seconds,
        timeout: 10,
        requests: options.requests as autocannon.Request[],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('response', (_client, status) => {
      counters.responses++;
      if (status < 200 || status > 299) counters.non2xx++;
      if (status >= 500) counters.status5xx++;
      counters.byStatus.set(status, (counters.byStatus.get(status) ?? 0) + 1);
    });
    instance.on('reqError', () => counters.errors++);
  });
}
