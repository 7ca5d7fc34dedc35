import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { createSecretKey, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, JWTPayload, jwtVerify, JWTVerifyGetKey, SignJWT } from 'jose';
import { appConfig } from '../config/app.config';
import { AuthUser, isRole, Role } from './auth-user';
import { parseId } from '../common/validation/input-parsing';
import { epochSeconds, VerifiedTokens } from './verified-tokens';

type Verifier = (token: string) => Promise<JWTPayload>;

/**
 * Verifies bearer tokens: HS256 with AUTH_JWT_SECRET, or RS256/ES256 keys from
 * AUTH_JWKS_URL. With neither configured, development gets an ephemeral secret
 * and a logged administrator token; production gets no verifier at all, so
 * every write answers 401 (read-only mode).
 */
@Injectable()
export class TokenService implements OnModuleInit {
  private readonly logger = new Logger('Auth');
  private verifier?: Verifier;
  private secret?: Uint8Array;
  private readonly verified = new VerifiedTokens();

  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  async onModuleInit(): Promise<void> {
    const { jwtSecret, jwksUrl, issuer, audience } = this.config.auth;
    const claims = { issuer, audience };
    if (jwksUrl) {
      const keys: JWTVerifyGetKey = createRemoteJWKSet(new URL(jwksUrl));
      this.verifier = async (token) =>
        (await jwtVerify(token, keys, { algorithms: ['RS256', 'ES256'], ...claims })).payload;
      return;
    }
    if (jwtSecret) {
      this.useSecret(new TextEncoder().encode(jwtSecret));
      return;
    }
    if (this.config.production) {
      this.logger.warn(
        'No AUTH_JWT_SECRET or AUTH_JWKS_URL: running read-only, every write answers 401.',
      );
      return;
    }
    this.useSecret(randomBytes(48));
    const token = await this.sign({ id: 1, role: 'administrator' }, '12h');
    this.logger.warn(
      `No AUTH_JWT_SECRET set: using an ephemeral secret. Administrator token for this run (12 h): ${token}`,
    );
  }

  /** The caller of a token, or undefined when it is invalid, expired or malformed. */
  async verify(token: string): Promise<AuthUser | undefined> {
    if (!this.verifier || token.length > 8192) return undefined;
    const known = this.verified.get(token, epochSeconds());
    if (known) return { ...known };
    try {
      const payload = await this.verifier(token);
      const id = parseId(typeof payload.sub === 'string' ? payload.sub : undefined);
      const role = (payload as { role?: unknown }).role;
      if (id === undefined || !isRole(role)) return undefined;
      // The kept caller is its own copy: a request's `req.user` is never the cache's.
      this.verified.set(token, { id, role }, epochSeconds(), payload.exp);
      return { id, role };
    } catch {
      return undefined;
    }
  }

  /** Mints an HS256 token with the configured (or ephemeral) secret. */
  async sign(user: { id: number; role: Role }, expiresIn: string = '1h'): Promise<string> {
    if (!this.secret) throw new Error('No HS256 secret configured');
    return signToken(this.secret, user, expiresIn, this.config.auth);
  }

  private useSecret(secret: Uint8Array): void {
    this.secret = secret;
    const { issuer, audience } = this.config.auth;
    // A KeyObject made once: given the bytes, jose makes one per verification.
    const key = createSecretKey(secret);
    this.verifier = async (token) =>
      (await jwtVerify(token, key, { algorithms: ['HS256'], issuer, audience })).payload;
  }
}

/** Shared by the service and the `npm run token` script. */
export function signToken(
  secret: Uint8Array,
  user: { id: number; role: Role },
  expiresIn: string,
  claims: { issuer?: string; audience?: string } = {},
): Promise<string> {
  let jwt = new SignJWT({ role: user.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(user.id))
    .setIssuedAt()
    .setExpirationTime(expiresIn);
  if (claims.issuer) jwt = jwt.setIssuer(claims.issuer);
  if (claims.audience) jwt = jwt.setAudience(claims.audience);
  return jwt.sign(secret);
}
