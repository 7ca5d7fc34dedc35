import type { ConfigType } from '@nestjs/config';
import type { appConfig } from '../../src/config/app.config';
import { signToken, TokenService } from '../../src/auth/token.service';

const SECRET = 'a-test-secret-of-enough-length-for-hs256!!';
const config = {
  auth: { jwtSecret: SECRET, jwksUrl: undefined, issuer: undefined, audience: undefined },
  production: true,
} as unknown as ConfigType<typeof appConfig>;

/** TokenService.verify with its kept tokens: what jose refuses is refused from the cache too. */
describe('TokenService, verified tokens kept', () => {
  let tokens: TokenService;
  const start = Date.UTC(2026, 10, 28, 12, 0, 0);
  beforeEach(async () => {
    jest.useFakeTimers({ now: start, doNotFake: ['nextTick', 'setImmediate'] });
    tokens = new TokenService(config);
    await tokens.onModuleInit();
  });
  afterEach(() => jest.useRealTimers());

  const sign = (expiresIn: string) =>
    signToken(new TextEncoder().encode(SECRET), { id: 7, role: 'editor' }, expiresIn);

  it('answers a kept token until its exp, then refuses it', async () => {
    const token = await sign('30s');
    expect(await tokens.verify(token)).toEqual({ id: 7, role: 'editor' });
    jest.setSystemTime(start + 29_000);
    expect(await tokens.verify(token)).toEqual({ id: 7, role: 'editor' });
    jest.setSystemTime(start + 30_000);
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it('checks a long-lived token again after 60 s, and never keeps a refused one', async () => {
    const token = await sign('1h');
    await tokens.verify(token);
    const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(await tokens.verify(forged)).toBeUndefined();
    expect(await tokens.verify(forged)).toBeUndefined();
    jest.setSystemTime(start + 61_000);
    expect(await tokens.verify(token)).toEqual({ id: 7, role: 'editor' });
  });

  it('gives each caller its own copy of the kept caller', async () => {
    const token = await sign('1h');
    const first = (await tokens.verify(token))!;
    first.role = 'administrator';
    expect(await tokens.verify(token)).toEqual({ id: 7, role: 'editor' });
  });
});
