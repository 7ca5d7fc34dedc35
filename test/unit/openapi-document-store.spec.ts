import type { OpenAPIObject } from '@nestjs/swagger';
import { OpenApiDocumentStore } from '../../src/index/openapi-document.store';

const DOCUMENT: OpenAPIObject = {
  openapi: '3.0.0',
  info: { title: 'T', version: '1' },
  paths: {},
};

describe('OpenApiDocumentStore', () => {
  it('generates the document when first asked for, once', () => {
    const store = new OpenApiDocumentStore();
    const build = jest.fn(() => ({ ...DOCUMENT }));
    store.generateWith(build);
    expect(build).toHaveBeenCalledTimes(0);

    const first = store.get();
    const second = store.get();

    expect(build).toHaveBeenCalledTimes(1);
    expect(first).toEqual(DOCUMENT);
    expect(second).toBe(first);
  });

  it('generates again after a new set-up', () => {
    const store = new OpenApiDocumentStore();
    store.generateWith(() => ({ ...DOCUMENT, info: { title: 'A', version: '1' } }));
    expect(store.get().info.title).toBe('A');

    store.generateWith(() => ({ ...DOCUMENT, info: { title: 'B', version: '1' } }));

    expect(store.get().info.title).toBe('B');
  });

  it('fails clearly before the application is set up', () => {
    expect(() => new OpenApiDocumentStore().get()).toThrow(
      'OpenAPI document not set up (configureApp not called)',
    );
  });
});
