/* A test that makes no assertion proves nothing: supertest's `.expect(status)` alone does not count. */
beforeEach(() => expect.hasAssertions());
