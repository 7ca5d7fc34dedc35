import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/*
 * Event passwords (docs/api.md §6) are stored only as `<salt>:<HMAC-SHA256>`,
 * keyed with a server key, and compared in constant time. The salt keeps two
 * events with the same password from sharing a hash.
 */

/**
 * The server key, derived from AUTH_JWT_SECRET so no second secret has to be
 * configured. Without one (JWKS or development) the hashes are salted but not keyed.
 */
export function passwordKey(secret: string | undefined): Buffer {
  return createHmac('sha256', secret ?? '')
    .update('calendar-events/event-password/v1')
    .digest();
}

export function hashPassword(key: Buffer, password: string): string {
  const salt = randomBytes(16).toString('hex');
  return `${salt}:${digest(key, salt, password)}`;
}

export function passwordMatches(key: Buffer, stored: string, candidate: unknown): boolean {
  if (typeof candidate !== 'string' || candidate === '') return false;
  const [salt, hash] = stored.split(':');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'hex');
  const actual = Buffer.from(digest(key, salt, candidate), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function digest(key: Buffer, salt: string, password: string): string {
  return createHmac('sha256', key).update(`${salt}:${password}`).digest('hex');
}
