import { hashPassword, passwordKey, passwordMatches } from '../../src/events/event-password';

describe('event passwords', () => {
  const key = passwordKey('a-server-secret-of-at-least-32-characters');

  it('stores a salted keyed hash, never the password', () => {
    const stored = hashPassword(key, 'open sesame');
    expect(stored).toMatch(/^[0-9a-f]{32}:[0-9a-f]{64}$/);
    expect(stored).not.toContain('sesame');
    expect(hashPassword(key, 'open sesame')).not.toBe(stored);
  });

  it('matches the right password only, under the same key', () => {
    const stored = hashPassword(key, 'open sesame');
    expect(passwordMatches(key, stored, 'open sesame')).toBe(true);
    expect(passwordMatches(key, stored, 'open sesame ')).toBe(false);
    expect(passwordMatches(key, stored, undefined)).toBe(false);
    expect(passwordMatches(key, stored, '')).toBe(false);
    expect(
      passwordMatches(passwordKey('another-server-secret-of-32-characters'), stored, 'open sesame'),
    ).toBe(false);
    expect(passwordMatches(key, 'garbage', 'open sesame')).toBe(false);
  });
});
