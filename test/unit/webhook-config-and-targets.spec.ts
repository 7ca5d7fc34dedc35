import { ConfigurationError, validateEnvironment } from '../../src/config/env.validation';
import { parseDurationList } from '../../src/config/durations';
import { isPublicAddress, safeLookup, urlProblem } from '../../src/common/net/target-safety';

describe('WEBHOOK_* configuration', () => {
  it('reads retry schedules in ms, s, m and h', () => {
    expect(parseDurationList('5s,1m,10m,1h,6h,24h')).toEqual([
      5000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000,
    ]);
    expect(parseDurationList(' 100ms , 200ms ')).toEqual([100, 200]);
    for (const bad of [
      '',
      '5',
      '5d',
      '1.5s',
      '-1s',
      '5s,,1m',
      '8d',
      '169h',
      Array(21).fill('1s').join(','),
    ]) {
      expect([bad, parseDurationList(bad)]).toEqual([bad, undefined]);
    }
  });

  it.each([
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,1x' }, /^WEBHOOK_RETRY_SCHEDULE must be a comma list/],
    [{ WEBHOOK_TIMEOUT_MS: '50' }, /^WEBHOOK_TIMEOUT_MS must be an integer between 100 and 60000/],
    [{ WEBHOOK_DISABLE_AFTER: '-1' }, /^WEBHOOK_DISABLE_AFTER must be a whole number/],
    [{ WEBHOOK_ALLOW_HTTP: 'yes' }, /^WEBHOOK_ALLOW_HTTP must be true or false/],
    [
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' },
      /^WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false/,
    ],
    [{ WEBHOOKS_WORKER: 'off' }, /^WEBHOOKS_WORKER must be true or false/],
    [
      { WEBHOOK_RETENTION_DAYS: '0' },
      /^WEBHOOK_RETENTION_DAYS must be an integer between 1 and 3650/,
    ],
    [
      { WEBHOOK_RETENTION_DAYS: '7d' },
      /^WEBHOOK_RETENTION_DAYS must be an integer between 1 and 3650/,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => validateEnvironment(env)).toThrow(ConfigurationError);
    expect(() => validateEnvironment(env)).toThrow(message);
  });

  it('accepts valid values', () => {
    const env = {
      WEBHOOK_RETRY_SCHEDULE: '100ms,2s',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_DISABLE_AFTER: '0',
      WEBHOOK_ALLOW_HTTP: 'false',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOKS_WORKER: 'false',
      WEBHOOK_RETENTION_DAYS: '3650',
    };
    expect(validateEnvironment(env)).toBe(env);
  });
});

describe('webhook targets', () => {
  const strict = { allowHttp: false, allowPrivateTargets: false };

  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  // IPv6 forms that carry an IPv4 address are judged by the address they carry.
  it.each([
    // IPv4-compatible ::/96 (what [::127.0.0.1] becomes in a URL)
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::a00:1', false],
    ['::a9fe:a9fe', false],
    ['::808:808', true],
    // IPv4-mapped ::ffff:0:0/96
    ['::ffff:7f00:1', false],
    ['::ffff:c0a8:101', false],
    ['::ffff:808:808', true],
    // IPv4-translated ::ffff:0:0:0/96
    ['::ffff:0:7f00:1', false],
    ['::ffff:0:a00:1', false],
    ['::ffff:0:808:808', true],
    // NAT64 well-known prefix 64:ff9b::/96; the local-use 64:ff9b:1::/48 is never public
    ['64:ff9b::7f00:1', false],
    ['64:ff9b::a9fe:a9fe', false],
    ['64:ff9b::808:808', true],
    ['64:ff9b:1::808:808', false],
    // 6to4 2002:AABB:CCDD::/48
    ['2002:7f00:1::1', false],
    ['2002:a00:1::1', false],
    ['2002:a9fe:a9fe::', false],
    ['2002:808:808::1', true],
    // Teredo 2001::/32: server in bits 32-63, client inverted in the last 32 bits
    ['2001:0:808:808:0:0:80ff:fffe', false], // client 127.0.0.1
    ['2001:0:808:808:0:0:f5ff:fffe', false], // client 10.0.0.1
    ['2001:0:a00:1:0:0:f7f7:f7f7', false], // server 10.0.0.1, client 8.8.8.8
    ['2001:0:808:808:0:0:f7f7:f7f7', true], // server and client 8.8.8.8
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false], // RFC 4380's example: client 192.0.2.45 is reserved
  ])('%s carries an IPv4 address: public %s', (address, expected) => {
    expect([address, isPublicAddress(address)]).toEqual([address, expected]);
  });

  it('refuses [::127.0.0.1] and other embedded internal IPv4 addresses as URLs', () => {
    for (const url of [
      'http://[::127.0.0.1]/',
      'https://[::10.0.0.1]/',
      'https://[::ffff:0:127.0.0.1]/',
      'https://[64:ff9b::169.254.169.254]/',
      'https://[2002:7f00:1::1]/',
      'https://[2001:0:808:808:0:0:80ff:fffe]/',
    ]) {
      expect([url, urlProblem(url, { ...strict, allowHttp: true })]).toEqual([
        url,
        'privateTarget',
      ]);
    }
    expect(urlProblem('https://[64:ff9b::8.8.8.8]/', strict)).toBeUndefined();
  });

  it('wants https:// unless WEBHOOK_ALLOW_HTTP, and no credentials or other schemes', () => {
    expect(urlProblem('https://hooks.example.com/x', strict)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/x', strict)).toBe('httpsRequired');
    expect(
      urlProblem('http://hooks.example.com/x', { ...strict, allowHttp: true }),
    ).toBeUndefined();
    expect(urlProblem('ftp://hooks.example.com/x', strict)).toBe('isUrl');
    expect(urlProblem('https://a:b@hooks.example.com/x', strict)).toBe('isUrl');
    expect(urlProblem('hooks.example.com', strict)).toBe('isUrl');
  });

  it('refuses internal IP literals in any spelling unless WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://0x7f.1/',
      'https://2130706433/',
      'https://[::1]/',
      'https://[::ffff:a00:1]/',
    ]) {
      expect([url, urlProblem(url, strict)]).toEqual([url, 'privateTarget']);
      expect(urlProblem(url, { ...strict, allowPrivateTargets: true })).toBeUndefined();
    }
  });

  it('hands the socket only addresses it checked: a name resolving to loopback fails to connect', async () => {
    const lookup = (all: boolean) =>
      new Promise<unknown>((resolve) =>
        safeLookup('localhost', { all }, (error, address) =>
          resolve(error ? error.message : address),
        ),
      );
    expect(await lookup(false)).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/,
    );
    expect(await lookup(true)).toMatch(/is not a public address$/);
  });
});
