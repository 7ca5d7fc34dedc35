import crypto from 'node:crypto';
import { hashPassword, passwordKey, passwordMatches } from '../../src/events/event-password';

/*
 * Event passwords are compared in constant time (docs/api.md §6, issue:
 * reliability): every candidate, right or wrong, goes through
 * crypto.timingSafeEqual on digests of equal length, never through `===`.
 */
describe('event password comparison', () => {
  const key = passwordKey('test-secret-that-is-long-enough-for-hs256-0123456789');
  const stored = hashPassword(key, 'Geheim-123');
  let spy: jest.SpyInstance;

  beforeEach(() => {
    spy = jest.spyOn(crypto, 'timingSafeEqual');
  });
  afterEach(() => spy.mockRestore());

  it.each([
    ['the right password', 'Geheim-123', true],
    ['a wrong one', 'Geheim-124', false],
    ['a prefix', 'Geheim', false],
    ['a much longer one', 'Geheim-123'.repeat(50), false],
  ])('compares %s with timingSafeEqual on two 32-byte digests', (_label, candidate, expected) => {
    expect(passwordMatches(key, stored, candidate)).toBe(expected);
    expect(spy).toHaveBeenCalledTimes(1);
    const [a, b] = spy.mock.calls[0] as [Buffer, Buffer];
    expect([a.length, b.length]).toEqual([32, 32]);
  });

  it('decides by the comparison: a forced false rejects even the right password', () => {
    spy.mockReturnValue(false);
    expect(passwordMatches(key, stored, 'Geheim-123')).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('stores salted hashes, never the password', () => {
    const again = hashPassword(key, 'Geheim-123');
    expect(stored).toMatch(/^[0-9a-f]{32}:[0-9a-f]{64}$/);
    expect(again).not.toBe(stored);
    expect(stored).not.toContain('Geheim');
    expect(passwordMatches(key, again, 'Geheim-123')).toBe(true);
  });
});
