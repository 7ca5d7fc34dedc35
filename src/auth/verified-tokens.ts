import type { AuthUser } from './auth-user';

/** Tokens remembered at most: a client sends the same token for its whole session. */
const MAX_ENTRIES = 1_000;
/** Longer tokens are verified every time, so the memory held stays small (≤ 2 MB of keys). */
const MAX_TOKEN_LENGTH = 2_048;
/** A verified token is trusted without a new check for at most this long, even without `exp`. */
const MAX_AGE_SECONDS = 60;

interface Entry {
  user: AuthUser;
  /** Seconds since the epoch before which the entry answers. */
  until: number;
}

/**
 * Bearer tokens verified a moment ago, with their caller (docs/decisions.md,
 * "Verifying a bearer token once a minute"): a client's writes carry the same
 * token, and each jose verification (HMAC, base64, JSON, claims) was about
 * 3 % of a create's CPU. Only tokens that verified are kept, each until its
 * `exp` (jose refuses it from then on) and at most 60 s; its `nbf` had
 * passed already. Oldest entries go first when it is full.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();

  /** The caller of a token verified before and still valid at `now` (seconds). */
  get(token: string, now: number): AuthUser | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (now < entry.until) return entry.user;
    this.entries.delete(token);
    return undefined;
  }

  /** Remembers a token that just verified at `now`; `exp`: its expiry claim, if any. */
  set(token: string, user: AuthUser, now: number, exp: number | undefined): void {
    if (token.length > MAX_TOKEN_LENGTH) return;
    const until = Math.min(now + MAX_AGE_SECONDS, exp ?? Infinity);
    if (!(until > now)) return;
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(token)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(token, { user, until });
  }
}

/** Now in whole seconds, as jose compares `exp` and `nbf`. */
export function epochSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
