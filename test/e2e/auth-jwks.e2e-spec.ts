import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { API, createTestApp, errorBody, TestApp } from './helpers/test-app';

/* Tokens of an identity provider: RS256 and ES256 keys from AUTH_JWKS_URL, with issuer and audience checks. */

describe('AUTH_JWKS_URL', () => {
  let t: TestApp;
  let jwks: Server;
  const keys: Record<string, CryptoKey> = {};

  const token = (
    alg: 'RS256' | 'ES256',
    claims: { iss?: string; aud?: string; role?: string } = {},
  ) =>
    new SignJWT({ role: claims.role ?? 'editor' })
      .setProtectedHeader({ alg, kid: alg })
      .setSubject('2')
      .setIssuer(claims.iss ?? 'https://idp.test')
      .setAudience(claims.aud ?? 'calendar')
      .setExpirationTime('5m')
      .sign(keys[alg]);

  beforeAll(async () => {
    const rsa = await generateKeyPair('RS256');
    const ec = await generateKeyPair('ES256');
    keys.RS256 = rsa.privateKey as CryptoKey;
    keys.ES256 = ec.privateKey as CryptoKey;
    const body = JSON.stringify({
      keys: [
        { ...(await exportJWK(rsa.publicKey)), kid: 'RS256', alg: 'RS256', use: 'sig' },
        { ...(await exportJWK(ec.publicKey)), kid: 'ES256', alg: 'ES256', use: 'sig' },
      ],
    });
    jwks = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body),
    );
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    t = await createTestApp({
      AUTH_JWT_SECRET: '',
      AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      AUTH_JWT_ISSUER: 'https://idp.test',
      AUTH_JWT_AUDIENCE: 'calendar',
    });
  });
  afterAll(async () => {
    await t?.close();
    jwks?.close();
  });

  it.each(['RS256', 'ES256'] as const)('accepts a %s token of the provider', async (alg) => {
    const res = await t
      .http()
      .post(`${API}/tags`)
      .set('Authorization', `Bearer ${await token(alg)}`)
      .send({ name: `Tag ${alg}` })
      .expect(201);
    expect(res.body.name).toBe(`Tag ${alg}`);
  });

  it('rejects another issuer, another audience and HS256 tokens with 401', async () => {
    for (const bearer of [
      await token('RS256', { iss: 'https://evil.test' }),
      await token('ES256', { aud: 'other-api' }),
      t.auth.editor.slice('Bearer '.length),
    ]) {
      const res = await t
        .http()
        .post(`${API}/tags`)
        .set('Authorization', `Bearer ${bearer}`)
        .send({ name: 'x' })
        .expect(401);
      expect(res.body).toEqual(errorBody('rest_forbidden', 401));
    }
  });
});
