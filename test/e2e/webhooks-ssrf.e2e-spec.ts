import type { DataSource } from 'typeorm';
import { WebhookEndpoint } from '../../src/webhooks/entities/webhook-endpoint.entity';
import { API, errorBody } from './helpers/test-app';
import { eventually, sleep, useWebhookApp } from './helpers/webhook-receiver';

/*
 * Webhook targets with the defaults for private targets (refused) and
 * plain HTTP allowed, so a real receiver on 127.0.0.1 can prove that nothing
 * reaches it: refused at registration, and again at delivery, on the address
 * the connection would actually go to (a name resolving to 127.0.0.1 included).
 * A refusal fails the delivery at its first attempt; a name that does not
 * resolve is retried along the schedule.
 */

/** An endpoint stored as is, without the registration's checks of its URL. */
function storedAsIs(dataSource: DataSource, url: string): Promise<WebhookEndpoint> {
  const repo = dataSource.getRepository(WebhookEndpoint);
  return repo.save(
    repo.create({
      url,
      events: ['*'],
      description: '',
      enabled: true,
      secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
      consecutiveFailures: 0,
      createdAt: 0,
      modifiedAt: 0,
    }),
  );
}

describe('webhooks: internal targets refused', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
    WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms',
    WEBHOOK_TIMEOUT_MS: '1000',
  });
  const port = () => ctx.receiver.port;
  const internal = () => [
    `http://127.0.0.1:${port()}/hook`,
    `http://10.1.2.3:${port()}/hook`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://[::1]:${port()}/hook`,
    `http://[::ffff:127.0.0.1]:${port()}/hook`,
    // IPv6 forms that carry an internal IPv4 address.
    `http://[::127.0.0.1]:${port()}/hook`,
    `http://[::ffff:0:127.0.0.1]:${port()}/hook`,
    `http://[64:ff9b::169.254.169.254]/latest/meta-data/`,
    `http://[2002:a9fe:a9fe::1]/latest/meta-data/`,
    `http://[2001:0:808:808:0:0:80ff:fffe]:${port()}/hook`,
    `http://[fd00:ec2::254]/latest/meta-data/`,
    `http://2130706433:${port()}/hook`,
    `http://0.0.0.0:${port()}/hook`,
    `http://224.0.0.1/hook`,
    `http://192.168.1.1/hook`,
    `http://100.100.100.200/hook`,
    `http://localhost:${port()}/hook`,
  ];

  it('refuses to register internal addresses and names that resolve to one', async () => {
    for (const url of internal()) {
      const res = await ctx.t
        .http()
        .post(`${API}/webhooks`)
        .set({ ...ctx.admin(), 'Accept-Language': 'en' })
        .send({ url, events: ['*'] });
      expect([url, res.status, res.body]).toEqual([
        url,
        400,
        errorBody('rest_invalid_param', 400, {
          url: 'url must not point at a loopback, private, link-local or other internal address.',
        }),
      ]);
    }
    const created = await ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set(ctx.admin())
      .send({ url: 'http://8.8.8.8/hook', events: ['*'] });
    expect(created.status).toBe(201);
    const moved = await ctx.t
      .http()
      .patch(`${API}/webhooks/${created.body.id}`)
      .set(ctx.admin())
      .send({ url: `http://localhost:${port()}/hook` });
    expect([moved.status, moved.body.code]).toEqual([400, 'rest_invalid_param']);
  });

  /** A ping to an endpoint stored as is (no registration check), and its delivery once failed. */
  const pingedUntilFailed = async (url: string) => {
    const endpoint = await storedAsIs(ctx.t.dataSource, url);
    await ctx.t.http().post(`${API}/webhooks/${endpoint.id}/ping`).set(ctx.admin()).expect(202);
    const log = await eventually(
      async () =>
        (
          await ctx.t
            .http()
            .get(`${API}/webhooks/${endpoint.id}/deliveries`)
            .set(ctx.admin())
            .expect(200)
        ).body.deliveries,
      (deliveries: Array<{ status: string }>) => deliveries[0]?.status === 'failed',
    );
    return log[0] as Record<string, unknown>;
  };

  it('refuses delivery to an internal address, checked on the address actually connected to, and fails it at once', async () => {
    // Endpoints whose address turned internal after registration (DNS rebinding).
    const urls = [
      `http://127.0.0.1:${port()}/hook`,
      `http://localhost:${port()}/hook`,
      `http://[::1]:${port()}/hook`,
      `http://[::127.0.0.1]:${port()}/hook`,
    ];
    for (const url of urls) {
      // A refusal by policy: the retry schedule (3 retries) is not walked.
      expect([url, await pingedUntilFailed(url)]).toEqual([
        url,
        expect.objectContaining({
          attempts: 1,
          last_status_code: null,
          last_error: expect.stringMatching(/is not a public address$/),
          next_attempt_utc: null,
        }),
      ]);
    }
    await sleep(100);
    expect(ctx.receiver.received).toEqual([]);
  });

  it('retries a name that does not resolve along the whole schedule (DNS may recover)', async () => {
    expect(await pingedUntilFailed('http://nothing.invalid/hook')).toEqual(
      expect.objectContaining({
        attempts: 4,
        last_status_code: null,
        last_error: expect.not.stringMatching(/is not a public address$/),
      }),
    );
  });
});

describe('webhooks: plain http:// refused at delivery once WEBHOOK_ALLOW_HTTP is off', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_HTTP: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_DISABLE_AFTER: '2',
  });

  const log = async (id: number) =>
    (await ctx.t.http().get(`${API}/webhooks/${id}/deliveries`).set(ctx.admin()).expect(200)).body
      .deliveries as Array<Record<string, unknown>>;

  it('refuses new http:// registrations, and fails every attempt to one registered while it was on', async () => {
    const url = ctx.receiver.url('/cleartext');
    const refused = await ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set({ ...ctx.admin(), 'Accept-Language': 'en' })
      .send({ url, events: ['*'] });
    expect([refused.status, refused.body]).toEqual([
      400,
      errorBody('rest_invalid_param', 400, { url: 'url must be an https:// URL.' }),
    ]);

    // Registered while WEBHOOK_ALLOW_HTTP was on.
    const endpoint = await storedAsIs(ctx.t.dataSource, url);
    await ctx.t.http().post(`${API}/webhooks/${endpoint.id}/ping`).set(ctx.admin()).expect(202);
    await ctx.t.http().post(`${API}/tags`).set(ctx.admin()).send({ name: 'cleartext' }).expect(201);
    const deliveries = await eventually(
      () => log(endpoint.id),
      (entries) => entries.length === 2 && entries.every((entry) => entry.status === 'failed'),
    );
    // Refused by policy: failed at the first attempt, the retry schedule not walked.
    const refusedAttempt = {
      status: 'failed',
      attempts: 1,
      last_status_code: null,
      last_response: null,
      last_error: 'plain http:// is not allowed (WEBHOOK_ALLOW_HTTP is off)',
      next_attempt_utc: null,
    };
    expect(deliveries.map((entry) => entry.type).sort()).toEqual(['ping', 'tag.created']);
    for (const entry of deliveries) expect(entry).toEqual(expect.objectContaining(refusedAttempt));
    // Failed messages count towards disabling, like any other failure.
    const after = await eventually(
      async () =>
        (await ctx.t.http().get(`${API}/webhooks/${endpoint.id}`).set(ctx.admin()).expect(200))
          .body,
      (body: { enabled: boolean; consecutive_failures: number }) => body.enabled === false,
    );
    expect([after.enabled, after.consecutive_failures]).toEqual([false, 2]);
    await sleep(100);
    expect(ctx.receiver.received).toEqual([]);
  });
});
