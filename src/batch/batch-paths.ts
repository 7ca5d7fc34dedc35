/** The collections whose writes a batch may carry (docs/api.md §18). */
export const BATCH_COLLECTIONS = ['events', 'venues', 'organizers', 'categories', 'tags'];

/** Any base will do: only the path and query of an operation are parsed against it. */
const BASE = 'http://batch.invalid';

/**
 * Whether `path` names a route of a batch collection under the namespace:
 * a plain absolute path (`/events/7?force=true`), exactly as the URL parser
 * would normalise it (so no `..`, `%2e`, backslash, fragment, space or other
 * character a request line could not carry), never an absolute URL or
 * `//host`, and its first segment one of BATCH_COLLECTIONS. The WHATWG URL
 * parser does the reading (linear, no hand-written pattern over user text).
 */
export function isBatchPath(path: string): boolean {
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('#')) return false;
  let url: URL;
  try {
    url = new URL(path, BASE);
  } catch {
    return false;
  }
  if (url.origin !== BASE || `${url.pathname}${url.search}` !== path) return false;
  const collection = url.pathname.split('/')[1];
  return BATCH_COLLECTIONS.includes(collection);
}
