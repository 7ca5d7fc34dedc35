import { isBatchPath } from '../../src/batch/batch-paths';

describe('isBatchPath (docs/api.md §18)', () => {
  it.each([
    '/events',
    '/events/7',
    '/events/7?force=true',
    '/venues/by-slug/tivoli',
    '/organizers/by-external-id/cms/a%2Fb%20c',
    '/categories/3',
    '/tags',
  ])('takes %s', (path) => {
    expect(isBatchPath(path)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['relative', 'events'],
    ['absolute URL', 'http://evil.test/events'],
    ['another host', '//evil.test/events'],
    ['the batch itself', '/batch'],
    ['a dot segment into another route', '/events/../batch'],
    ['an encoded dot segment', '/events/%2e%2e/batch'],
    ['a single dot segment', '/events/./7'],
    ['a backslash', '/events\\7'],
    ['a fragment', '/events#x'],
    ['a space', '/events/by-slug/a b'],
    ['a non-ASCII character', '/events/by-slug/café'],
    ['a control character', '/events/\u0000'],
    ['an empty query mark', '/events?'],
    ['another collection', '/webhooks'],
    ['the feed', '/changes'],
    ['the namespace itself', '/'],
    ['the documentation', '/doc'],
  ])('refuses %s', (_name, path) => {
    expect(isBatchPath(path)).toBe(false);
  });
});
