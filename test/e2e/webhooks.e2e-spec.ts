import { Webhook } from 'standardwebhooks';
import type { Test } from 'supertest';
import { WebhookRetention } from '../../src/webhooks/webhook-retention.service';
import { timeCalls, withStall } from './helpers/stall';
import { API, errorBody } from './helpers/test-app';
import { WebhookClaims } from '../../src/webhooks/webhook-claims';
import { WebhookOutcomes } from '../../src/webhooks/webhook-outcomes';
import { WebhookSender } from '../../src/webhooks/webhook-sender.service';
import { eventually, Received, sleep, useWebhookApp } from './helpers/webhook-receiver';
import { signatureByHand, SPEC_VECTOR } from './helpers/standard-webhooks';

/*
 * Webhooks (docs/api.md §15) against a real receiver on 127.0.0.1: HTTP and
 * private targets are allowed here (see webhooks-ssrf for the refusals), with
 * a short retry schedule and time-out.
 */

const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
/**
 * Long enough that a prompt receiver on a loaded two-core machine is never cut off (so
 * `attempts: 1` holds); the time-out test makes its receiver slower than this.
 */
const TIMEOUT_MS = 2000;

describe('webhooks', () => {
  const ctx = useWebhookApp({
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_DISABLE_AFTER: '2',
  });

  async function register(path: string, body: Record<string, unknown> = {}) {
    const res = await ctx.t
      .http()
      .post(`${API}/webhooks`)
      .set(ctx.admin())
      .send({ url: ctx.receiver.url(path), events: ['*'], ...body })
      .expect(201);
    return res.body as { id: number; secret: string };
  }

  const ping = (id: number) =>
    ctx.t.http().post(`${API}/webhooks/${id}/ping`).set(ctx.admin()).expect(202);

  const log = async (id: number) =>
    (await ctx.t.http().get(`${API}/webhooks/${id}/deliveries`).set(ctx.admin()).expect(200)).body
      .deliveries as Array<Record<string, unknown>>;

  /** Verifies a received message with the standardwebhooks library and returns its payload. */
  function verified(secret: string, message: Received): unknown {
    return new Webhook(secret).verify(message.body, {
      'webhook-id': String(message.headers['webhook-id']),
      'webhook-timestamp': String(message.headers['webhook-timestamp']),
      'webhook-signature': String(message.headers['webhook-signature']),
    });
  }

  describe('access', () => {
    const routes: Array<[string, string]> = [
      ['get', '/webhooks'],
      ['post', '/webhooks'],
      ['get', '/webhooks/1'],
      ['patch', '/webhooks/1'],
      ['delete', '/webhooks/1'],
      ['post', '/webhooks/1/rotate-secret'],
      ['get', '/webhooks/1/deliveries'],
      ['post', '/webhooks/1/deliveries/1/retry'],
      ['post', '/webhooks/1/ping'],
    ];

    const request = (method: string, path: string): Test =>
      (ctx.t.http() as unknown as Record<string, (url: string) => Test>)[method](`${API}${path}`);

    it.each(routes)(
      '%s %s: 401 without a token, 403 for every role below administrator',
      async (method, path) => {
        const call = () => request(method, path);
        const anonymous = await call().send({ url: 'nonsense' });
        expect([anonymous.status, anonymous.body]).toEqual([401, errorBody('rest_forbidden', 401)]);
        expect(anonymous.headers['www-authenticate']).toBe('Bearer');
        for (const role of ['editor', 'author', 'contributor', 'subscriber'] as const) {
          // Authorisation comes before validation: an invalid body still gets 403.
          const res = await call().set('Authorization', ctx.t.auth[role]).send({ url: 'nonsense' });
          expect([role, res.status, res.body]).toEqual([
            role,
            403,
            errorBody('rest_forbidden', 403),
          ]);
        }
      },
    );

    it('answers 400 for an unsupported language on every route, after authorisation', async () => {
      for (const [method, path] of routes) {
        const res = await request(method, `${path}?language=fr`).set(ctx.admin()).send({});
        expect([method, path, res.status, res.body]).toEqual([
          method,
          path,
          400,
          errorBody('rest_invalid_param', 400, { language: expect.any(String) }),
        ]);
        const editor = await request(method, `${path}?language=fr`)
          .set('Authorization', ctx.t.auth.editor)
          .send({});
        expect(editor.status).toBe(403);
      }
    });

    it('answers 404 rest-webhook-not-found for an endpoint that does not exist', async () => {
      for (const [method, path] of routes.filter(([, p]) => p !== '/webhooks')) {
        const res = await request(method, path.replace('/1', '/99')).set(ctx.admin()).send({});
        expect([method, path, res.status, res.body]).toEqual([
          method,
          path,
          404,
          errorBody('rest-webhook-not-found', 404),
        ]);
      }
    });
  });

  describe('endpoints', () => {
    it('creates an endpoint, shows its secret only once, and lists, reads, changes and deletes it', async () => {
      const res = await ctx.t
        .http()
        .post(`${API}/webhooks`)
        .set(ctx.admin())
        .send({
          url: ctx.receiver.url('/crud'),
          events: ['event.created', 'tag.deleted', 'event.created'],
          description: 'search index',
        })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        url: ctx.receiver.url('/crud'),
        events: ['event.created', 'tag.deleted'],
        description: 'search index',
        enabled: true,
        secret: expect.stringMatching(SECRET),
        created_utc: expect.stringMatching(DATE),
        modified_utc: expect.stringMatching(DATE),
        consecutive_failures: 0,
      });
      expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);
      const id = res.body.id as number;
      expect(res.headers.location).toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:\\d+${API}/webhooks/${id}$`),
      );
      const { secret: _secret, ...record } = res.body;

      expect(
        (await ctx.t.http().get(`${API}/webhooks/${id}`).set(ctx.admin()).expect(200)).body,
      ).toEqual(record);
      const list = await ctx.t.http().get(`${API}/webhooks`).set(ctx.admin()).expect(200);
      expect(list.body).toEqual({
        webhooks: [record],
        rest_url: expect.stringMatching(/\/webhooks\?page=1$/),
        total: 1,
        total_pages: 1,
      });
      expect([list.headers['x-total'], list.headers['x-totalpages']]).toEqual(['1', '1']);

      const changed = await ctx.t
        .http()
        .patch(`${API}/webhooks/${id}`)
        .set(ctx.admin())
        .send({ events: '*', description: '', enabled: 'false' })
        .expect(200);
      expect(changed.body).toEqual({
        ...record,
        events: ['*'],
        description: '',
        enabled: false,
        modified_utc: expect.stringMatching(DATE),
      });

      const removed = await ctx.t
        .http()
        .delete(`${API}/webhooks/${id}`)
        .set(ctx.admin())
        .expect(200);
      expect(removed.body).toEqual(changed.body);
      await ctx.t.http().get(`${API}/webhooks/${id}`).set(ctx.admin()).expect(404);
    });

    it('validates the body', async () => {
      const post = (body: Record<string, unknown>) =>
        ctx.t.http().post(`${API}/webhooks`).set(ctx.admin()).send(body);
      expect((await post({})).body).toEqual(
        errorBody('rest_missing_callback_param', 400, ['url', 'events']),
      );
      const invalid = async (body: Record<string, unknown>, name: string) => {
        const res = await post({ url: ctx.receiver.url('/x'), events: ['*'], ...body });
        expect([res.status, res.body]).toEqual([
          400,
          errorBody('rest_invalid_param', 400, { [name]: expect.any(String) }),
        ]);
      };
      await invalid({ events: ['event.moved'] }, 'events');
      await invalid({ events: [] }, 'events');
      await invalid({ events: 'ping' }, 'events');
      await invalid({ url: 'not a url' }, 'url');
      await invalid({ url: 'ftp://example.com/hook' }, 'url');
      await invalid({ url: 'https://user:pass@example.com/hook' }, 'url');
      await invalid({ url: `https://example.com/${'a'.repeat(2048)}` }, 'url');
      await invalid({ description: 'a'.repeat(256) }, 'description');
      await invalid({ enabled: 'maybe' }, 'enabled');

      const { id } = await register('/x');
      const patch = await ctx.t
        .http()
        .patch(`${API}/webhooks/${id}`)
        .set(ctx.admin())
        .send({ description: null });
      expect([patch.status, patch.body]).toEqual([
        400,
        errorBody('rest_invalid_param', 400, { description: expect.any(String) }),
      ]);
      const english = await post({ events: ['*'], url: 'nope' }).set('Accept-Language', 'en');
      expect(english.body.message).toBe('Invalid parameter(s): url');
    });

    it('rotates the secret: the new one is shown once and signs from then on', async () => {
      const { id, secret } = await register('/rotate');
      const rotated = await ctx.t
        .http()
        .post(`${API}/webhooks/${id}/rotate-secret`)
        .set(ctx.admin())
        .expect(200);
      expect(rotated.body).toEqual(
        expect.objectContaining({ id, secret: expect.stringMatching(SECRET) }),
      );
      expect(rotated.body.secret).not.toBe(secret);
      expect(
        (await ctx.t.http().get(`${API}/webhooks/${id}`).set(ctx.admin()).expect(200)).body.secret,
      ).toBeUndefined();
      await ping(id);
      const [message] = await ctx.receiver.waitFor('/rotate', 1);
      expect(() => verified(secret, message)).toThrow();
      expect(verified(rotated.body.secret, message)).toEqual(
        expect.objectContaining({ type: 'ping' }),
      );
    });
    it('never stores a secret with an Idempotency-Key: a replay answers it as null, and the secret shown once keeps signing', async () => {
      const withKey = (path: string, key: string, body: object = {}) =>
        ctx.t
          .http()
          .post(`${API}${path}`)
          .set({ ...ctx.admin(), 'Idempotency-Key': key })
          .send(body);
      const body = { url: ctx.receiver.url('/keyed'), events: ['*'] };
      const created = await withKey('/webhooks', 'create-1', body).expect(201);
      expect(created.body.secret).toMatch(SECRET);
      const replayedCreate = await withKey('/webhooks', 'create-1', body).expect(201);
      expect(replayedCreate.headers['idempotency-replayed']).toBe('true');
      expect(replayedCreate.headers.location).toBe(created.headers.location);
      expect(replayedCreate.body).toEqual({ ...created.body, secret: null });

      const { id } = created.body as { id: number };
      const rotated = await withKey(`/webhooks/${id}/rotate-secret`, 'rotate-1').expect(200);
      expect(rotated.body.secret).toMatch(SECRET);
      const replayedRotate = await withKey(`/webhooks/${id}/rotate-secret`, 'rotate-1').expect(200);
      expect(replayedRotate.headers['idempotency-replayed']).toBe('true');
      expect(replayedRotate.body).toEqual({ ...rotated.body, secret: null });

      const stored: unknown[] = await ctx.t.dataSource.query('SELECT * FROM idempotency_keys');
      expect(stored).toHaveLength(2);
      expect(JSON.stringify(stored)).not.toContain('whsec_');
      // The replay rotated nothing: the secret of the first rotate answer signs.
      await ping(id);
      const [message] = await ctx.receiver.waitFor('/keyed', 1);
      expect(verified(rotated.body.secret, message)).toEqual(
        expect.objectContaining({ type: 'ping' }),
      );
    });

    it('bumps the data version once per endpoint write (no tracked change), and once per tracked write the outbox sends', async () => {
      const version = async () =>
        Number(
          (
            (await ctx.t.dataSource.query(
              'SELECT version FROM data_version WHERE id = 1',
            )) as Array<{
              version: number | string;
            }>
          )[0].version,
        );
      const bumpsOf = async (write: () => Promise<unknown>) => {
        const before = await version();
        await write();
        return (await version()) - before;
      };
      let id = 0;
      expect(
        await bumpsOf(async () => {
          id = (await register('/versioned', { events: ['tag.created'] })).id;
        }),
      ).toBe(1);
      expect(
        await bumpsOf(() =>
          ctx.t
            .http()
            .patch(`${API}/webhooks/${id}`)
            .set(ctx.admin())
            .send({ description: 'Tags' })
            .expect(200),
        ),
      ).toBe(1);
      // The sender's lease and record of the delivery belong to no request: one bump, the create's.
      expect(
        await bumpsOf(async () => {
          await ctx.t
            .http()
            .post(`${API}/tags`)
            .set(ctx.admin())
            .send({ name: 'Herfst' })
            .expect(201);
          await ctx.receiver.waitFor('/versioned', 1);
          await eventually(
            () => log(id),
            (l) => l[0]?.status === 'delivered',
          );
        }),
      ).toBe(1);
      expect(
        await bumpsOf(() =>
          ctx.t.http().delete(`${API}/webhooks/${id}`).set(ctx.admin()).expect(200),
        ),
      ).toBe(1);
    });
  });

  describe('delivery', () => {
    it('pings: a signed message the standardwebhooks library verifies, logged as delivered', async () => {
      ctx.receiver.plan('/ping', [{ status: 204, body: '' }]);
      const { id, secret } = await register('/ping', { events: ['event.created'] });
      const queued = await ping(id);
      expect(queued.body).toEqual({
        id: expect.any(Number),
        message_id: expect.stringMatching(/^msg_[A-Za-z0-9_-]{22}$/),
        type: 'ping',
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_attempt_utc: null,
        next_attempt_utc: expect.stringMatching(DATE),
        created_utc: expect.stringMatching(DATE),
        last_response: null,
        last_error: null,
      });
      const [message] = await ctx.receiver.waitFor('/ping', 1);
      expect(message.headers).toEqual(
        expect.objectContaining({
          'content-type': 'application/json',
          'webhook-id': queued.body.message_id,
          'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
          'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+={0,2}$/),
        }),
      );
      expect(
        Math.abs(Number(message.headers['webhook-timestamp']) - Date.now() / 1000),
      ).toBeLessThan(5);
      // The signature as the specification defines it, the oracle checked against its vector.
      expect(
        signatureByHand(
          SPEC_VECTOR.secret,
          SPEC_VECTOR.id,
          SPEC_VECTOR.timestamp,
          SPEC_VECTOR.body,
        ),
      ).toBe(SPEC_VECTOR.signature);
      expect(message.headers['webhook-signature']).toBe(
        signatureByHand(
          secret,
          queued.body.message_id,
          String(message.headers['webhook-timestamp']),
          message.body,
        ),
      );
      expect(verified(secret, message)).toEqual({
        type: 'ping',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: { kind: 'webhook', id },
      });
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'delivered',
      );
      expect(entry).toEqual({
        ...queued.body,
        status: 'delivered',
        attempts: 1,
        last_status_code: 204,
        last_attempt_utc: expect.stringMatching(DATE),
        next_attempt_utc: null,
        last_response: '',
      });
    });

    it('retries a 500 with the same webhook-id along the schedule, then delivers', async () => {
      ctx.receiver.plan('/flaky', [
        { status: 500, body: 'down' },
        { status: 500, body: 'still down' },
      ]);
      const { id, secret } = await register('/flaky');
      const queued = await ping(id);
      const messages = await ctx.receiver.waitFor('/flaky', 3);
      expect(messages.map((m) => m.headers['webhook-id'])).toEqual(
        Array(3).fill(queued.body.message_id),
      );
      for (const message of messages)
        expect(verified(secret, message)).toEqual(expect.objectContaining({ type: 'ping' }));
      // 100 ms, then 200 ms, each with up to 20 % jitter.
      expect(messages[1].at - messages[0].at).toBeGreaterThanOrEqual(95);
      expect(messages[2].at - messages[1].at).toBeGreaterThanOrEqual(195);
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'delivered',
      );
      expect(entry).toEqual(
        expect.objectContaining({
          status: 'delivered',
          attempts: 3,
          last_status_code: 200,
          last_response: 'ok',
        }),
      );
    });

    it('starts each retry within its delay and jitter of the failed attempt, also with several retries due at different times', async () => {
      const paths = ['/gap-a', '/gap-b', '/gap-c'];
      // The sender's database work in a gap: recording the failed attempt, and its looks for
      // work (the endpoints, then a claim per endpoint), of which a retry may wait for two.
      const sender = ctx.t.app.get(WebhookSender) as unknown as {
        claimAndSend(): Promise<void>;
      };
      const looks = timeCalls(sender, 'claimAndSend');
      const records = timeCalls(WebhookOutcomes.prototype, 'record');
      const [messages, stall] = await withStall(async () => {
        for (const path of paths) {
          ctx.receiver.plan(path, [{ status: 500 }, { status: 500 }]);
          await ping((await register(path)).id);
          await sleep(30);
        }
        return Promise.all(paths.map((path) => ctx.receiver.waitFor(path, 3)));
      }).finally(() => {
        looks.restore();
        records.restore();
      });
      // The schedule is 100ms,200ms, each up to 20 % longer; an attempt is counted from when
      // the receiver got it, so its answer, recording it and the next claim are in the gap:
      // 150 ms, plus this process's stalls, plus the longest the database took for them
      // (commits are slow on a loaded MariaDB, while this process idles). A sender that waited
      // for its 500 ms poll instead of the due retry would still be over the bound (up to
      // 700 ms for the 200 ms retry) while the database answers promptly.
      const schedule = [100, 200];
      const margin = 150 + stall + records.longestMs() + 2 * looks.longestMs();
      for (const [n, received] of messages.entries()) {
        for (const [i, delay] of schedule.entries()) {
          const gap = received[i + 1].at - received[i].at;
          // The figures name the gap, so a failure shows them.
          const figures = `${paths[n]} retry ${i + 1}: ${gap} ms, stall ${stall} ms, margin ${margin} ms`;
          expect([figures, gap >= delay, gap <= delay * 1.2 + margin]).toEqual([
            figures,
            true,
            true,
          ]);
        }
      }
    });

    it('retries an answer that does not come within WEBHOOK_TIMEOUT_MS', async () => {
      ctx.receiver.plan('/slow', [{ delayMs: TIMEOUT_MS + 2000 }]);
      const { id } = await register('/slow');
      const queued = await ping(id);
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.attempts === 1,
      );
      expect(entry).toEqual(
        expect.objectContaining({
          status: 'pending',
          last_status_code: null,
          last_error: `no answer within ${TIMEOUT_MS} ms`,
        }),
      );
      const messages = await ctx.receiver.waitFor('/slow', 2);
      expect(messages.map((m) => m.headers['webhook-id'])).toEqual([
        queued.body.message_id,
        queued.body.message_id,
      ]);
      await eventually(
        () => log(id),
        (l) => l[0]?.status === 'delivered',
      );
    });

    it('marks a message failed after the last attempt, and disables the endpoint after WEBHOOK_DISABLE_AFTER of them', async () => {
      ctx.receiver.plan('/dead', [], { status: 503, body: 'gone' });
      const { id } = await register('/dead');
      await ping(id);
      const [failed] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'failed',
      );
      expect(failed).toEqual(
        expect.objectContaining({
          attempts: 3,
          last_status_code: 503,
          last_response: 'gone',
          next_attempt_utc: null,
        }),
      );
      expect(ctx.receiver.on('/dead')).toHaveLength(3);
      const endpoint = await ctx.t.http().get(`${API}/webhooks/${id}`).set(ctx.admin()).expect(200);
      expect([endpoint.body.enabled, endpoint.body.consecutive_failures]).toEqual([true, 1]);

      await ping(id);
      await eventually(
        () => log(id),
        (l) => l[0]?.status === 'failed',
      );
      await eventually(
        async () => (await ctx.t.http().get(`${API}/webhooks/${id}`).set(ctx.admin())).body,
        (body) => body.enabled === false && body.consecutive_failures === 2,
      );

      // Enabled again by hand: the count starts afresh; a delivered message also resets it.
      const enabled = await ctx.t
        .http()
        .patch(`${API}/webhooks/${id}`)
        .set(ctx.admin())
        .send({ enabled: true })
        .expect(200);
      expect([enabled.body.enabled, enabled.body.consecutive_failures]).toEqual([true, 0]);
    });

    it('sends a delivery again on a manual retry, with the same webhook-id, even to a disabled endpoint', async () => {
      ctx.receiver.plan('/retry', [], { status: 500 });
      const { id } = await register('/retry', { enabled: false });
      const queued = await ping(id);
      await eventually(
        () => log(id),
        (l) => l[0]?.status === 'failed',
      );

      ctx.receiver.plan('/retry', []);
      const retried = await ctx.t
        .http()
        .post(`${API}/webhooks/${id}/deliveries/${queued.body.id}/retry`)
        .set(ctx.admin())
        .expect(202);
      expect(retried.body).toEqual(
        expect.objectContaining({
          id: queued.body.id,
          message_id: queued.body.message_id,
          status: 'pending',
          attempts: 3,
        }),
      );
      const messages = await ctx.receiver.waitFor('/retry', 4);
      expect(new Set(messages.map((m) => m.headers['webhook-id']))).toEqual(
        new Set([queued.body.message_id]),
      );
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'delivered',
      );
      expect(entry).toEqual(
        expect.objectContaining({ attempts: 4, last_status_code: 200, next_attempt_utc: null }),
      );

      const missing = await ctx.t
        .http()
        .post(`${API}/webhooks/${id}/deliveries/999/retry`)
        .set(ctx.admin());
      expect([missing.status, missing.body]).toEqual([
        404,
        errorBody('rest-webhook-delivery-not-found', 404),
      ]);
      const other = await register('/other');
      const elsewhere = await ctx.t
        .http()
        .post(`${API}/webhooks/${other.id}/deliveries/${queued.body.id}/retry`)
        .set(ctx.admin());
      expect(elsewhere.status).toBe(404);
    });

    it('does not follow redirects and keeps at most 1 KiB of the answer', async () => {
      ctx.receiver.plan('/moved', [], {
        status: 302,
        headers: { location: ctx.receiver.url('/target') },
        body: 'x'.repeat(5000),
      });
      const { id } = await register('/moved');
      await ping(id);
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'failed',
      );
      expect(entry).toEqual(
        expect.objectContaining({ last_status_code: 302, last_response: 'x'.repeat(1024) }),
      );
      expect(ctx.receiver.on('/target')).toHaveLength(0);
    });

    it('pages the deliveries log newest first', async () => {
      const { id } = await register('/paged');
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await ping(id)).body.id);
      await ctx.receiver.waitFor('/paged', 3);
      const page = await ctx.t
        .http()
        .get(`${API}/webhooks/${id}/deliveries?per_page=2`)
        .set(ctx.admin())
        .expect(200);
      expect(page.body).toEqual({
        deliveries: [
          expect.objectContaining({ id: ids[2] }),
          expect.objectContaining({ id: ids[1] }),
        ],
        rest_url: expect.stringMatching(/\/deliveries\?per_page=2&page=1$/),
        next_rest_url: expect.stringMatching(/\/deliveries\?per_page=2&page=2$/),
        total: 3,
        total_pages: 2,
      });
      const second = await ctx.t
        .http()
        .get(`${API}/webhooks/${id}/deliveries?per_page=2&page=2`)
        .set(ctx.admin())
        .expect(200);
      expect(second.body.deliveries).toEqual([
        expect.objectContaining({ id: ids[0], type: 'ping' }),
      ]);
      const bad = await ctx.t
        .http()
        .get(`${API}/webhooks/${id}/deliveries?page=0`)
        .set(ctx.admin());
      expect([bad.status, bad.body]).toEqual([
        400,
        errorBody('rest_invalid_param', 400, { page: expect.any(String) }),
      ]);
    });

    /** Delivery IDs the sender's claims (its poll's look-ups) found while `write` ran. */
    async function claimedDuring(write: () => Promise<void>): Promise<number[]> {
      const sender = ctx.t.app.get(WebhookClaims) as unknown as {
        claim(...args: unknown[]): Promise<Array<{ id: number }>>;
      };
      const original = sender.claim.bind(sender);
      const claimed: number[] = [];
      const claim = jest.spyOn(sender, 'claim').mockImplementation(async (...args) => {
        const rows = await original(...args);
        claimed.push(...rows.map((row) => row.id));
        return rows;
      });
      try {
        await write();
        return claimed;
      } finally {
        claim.mockRestore();
      }
    }

    it("takes a write's deliveries at its commit, without a claim that looks them up", async () => {
      const { id } = await register('/handed', { events: ['tag.created'] });
      const claimed = await claimedDuring(async () => {
        await ctx.t.http().post(`${API}/tags`).set(ctx.admin()).send({ name: 'Zomer' }).expect(201);
        await ctx.receiver.waitFor('/handed', 1);
      });
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'delivered',
      );
      expect(entry).toEqual(expect.objectContaining({ type: 'tag.created', attempts: 1 }));
      expect(claimed).not.toContain(entry.id);
    });

    it('takes the deliveries of a write with several messages at its commit too', async () => {
      const { id } = await register('/handed-many', {
        events: ['event.created', 'category.created'],
      });
      const claimed = await claimedDuring(async () => {
        await ctx.t
          .http()
          .post(`${API}/events`)
          .set(ctx.admin())
          .send({
            title: 'Handed over',
            start_date: '2030-03-01 20:00:00',
            end_date: '2030-03-01 22:00:00',
            categories: ['Handed genre'],
          })
          .expect(201);
        await ctx.receiver.waitFor('/handed-many', 2);
      });
      const entries = await eventually(
        () => log(id),
        (l) => l.length === 2 && l.every((entry) => entry.status === 'delivered'),
      );
      expect(entries.map((entry) => entry.type).sort()).toEqual([
        'category.created',
        'event.created',
      ]);
      for (const entry of entries) expect(claimed).not.toContain(entry.id);
    });

    /** Holds the sender's take of the next write's deliveries at its commit until `go` is called. */
    function holdTake(): { taking: Promise<void>; go: () => void; restore: () => void } {
      const sender = ctx.t.app.get(WebhookSender) as unknown as {
        take(rows: unknown[]): Promise<void>;
      };
      const original = sender.take.bind(sender);
      let go!: () => void;
      const released = new Promise<void>((resolve) => (go = resolve));
      let taking!: () => void;
      const started = new Promise<void>((resolve) => (taking = resolve));
      const take = jest.spyOn(sender, 'take').mockImplementationOnce(async (rows) => {
        taking();
        await released;
        return original(rows);
      });
      return { taking: started, go, restore: () => take.mockRestore() };
    }

    // Written leased: a poll here or on another instance finds nothing to claim between the
    // COMMIT and the take (before, the take leased them with an UPDATE after the COMMIT).
    it("writes a write's deliveries leased to this sender, so no poll claims them before its take", async () => {
      const { id } = await register('/leased', { events: ['tag.created'] });
      const held = holdTake();
      try {
        await ctx.t.http().post(`${API}/tags`).set(ctx.admin()).send({ name: 'Lente' }).expect(201);
        await held.taking;
        const [row]: Array<{ lease_owner: string | null; lease_until_ms: number | string | null }> =
          await ctx.t.dataSource.query(
            'SELECT lease_owner, lease_until_ms FROM webhook_deliveries WHERE endpoint_id = ?',
            [id],
          );
        const claims = ctx.t.app.get(WebhookClaims);
        expect(row.lease_owner).toBe(claims.owner);
        // The time-out of the one attempt plus the 15 s margin, from about now.
        expect(Number(row.lease_until_ms)).toBeGreaterThan(Date.now() + 15_000);
        expect(await claims.claim('endpoint_id = ?', [id], 10, 0)).toEqual([]);
      } finally {
        held.go();
        held.restore();
      }
      await ctx.receiver.waitFor('/leased', 1);
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'delivered',
      );
      expect(entry).toEqual(expect.objectContaining({ type: 'tag.created', attempts: 1 }));
      await sleep(300);
      expect(ctx.receiver.on('/leased')).toHaveLength(1);
    });

    it('gives deliveries back to the poll when the queues filled up between the write and its commit', async () => {
      const sender = ctx.t.app.get(WebhookSender) as unknown as {
        aheadOf(endpointIds: number[]): number | undefined;
      };
      const original = sender.aheadOf.bind(sender);
      // Room when the INSERT is written (the lease), none at the take after the COMMIT.
      const aheadOf = jest
        .spyOn(sender, 'aheadOf')
        .mockImplementationOnce(original)
        .mockImplementationOnce(() => undefined);
      try {
        const { id } = await register('/given-back', { events: ['tag.created'] });
        const claimed = await claimedDuring(async () => {
          await ctx.t
            .http()
            .post(`${API}/tags`)
            .set(ctx.admin())
            .send({ name: 'Winter' })
            .expect(201);
          await ctx.receiver.waitFor('/given-back', 1);
        });
        expect(aheadOf).toHaveBeenCalledTimes(2);
        const [entry] = await eventually(
          () => log(id),
          (l) => l[0]?.status === 'delivered',
        );
        expect(entry).toEqual(expect.objectContaining({ type: 'tag.created', attempts: 1 }));
        // Its lease was given back at once: a poll claimed it, well before the lease's end.
        expect(claimed).toContain(entry.id);
      } finally {
        aheadOf.mockRestore();
      }
    });

    it('keeps a delivery leased, not lost, when giving it back fails (database away for a moment)', async () => {
      const sender = ctx.t.app.get(WebhookSender) as unknown as {
        aheadOf(endpointIds: number[]): number | undefined;
      };
      const claims = ctx.t.app.get(WebhookClaims);
      const original = sender.aheadOf.bind(sender);
      const aheadOf = jest
        .spyOn(sender, 'aheadOf')
        .mockImplementationOnce(original)
        .mockImplementationOnce(() => undefined);
      let failed!: () => void;
      const gaveUp = new Promise<void>((resolve) => (failed = resolve));
      const unclaim = jest.spyOn(claims, 'unclaim').mockImplementationOnce(async () => {
        failed();
        throw new Error('connection lost');
      });
      const { id } = await register('/kept-leased', { events: ['tag.created'] });
      try {
        await ctx.t.http().post(`${API}/tags`).set(ctx.admin()).send({ name: 'Dooi' }).expect(201);
        await gaveUp;
        await sleep(300);
        expect(ctx.receiver.on('/kept-leased')).toEqual([]);
      } finally {
        aheadOf.mockRestore();
        unclaim.mockRestore();
      }
      const [row]: Array<{ status: string; lease_owner: string | null }> =
        await ctx.t.dataSource.query(
          'SELECT status, lease_owner FROM webhook_deliveries WHERE endpoint_id = ?',
          [id],
        );
      expect(row).toEqual({ status: 'pending', lease_owner: claims.owner });
      // Once its lease has run out, the next poll sends it.
      await ctx.t.dataSource.query(
        'UPDATE webhook_deliveries SET lease_until_ms = 0 WHERE endpoint_id = ?',
        [id],
      );
      ctx.t.app.get(WebhookSender).wake();
      await ctx.receiver.waitFor('/kept-leased', 1);
      const [entry] = await eventually(
        () => log(id),
        (l) => l[0]?.status === 'delivered',
      );
      expect(entry).toEqual(expect.objectContaining({ type: 'tag.created', attempts: 1 }));
    });

    it('a slow receiver does not hold up other endpoints', async () => {
      // The slow endpoint answers once the quick one got its message, not after a fixed
      // 100 ms that a loaded machine may spend before the quick message is even written (its
      // 24 messages, 8 at a time, then keep it busy for 3 × 500 ms at least); at the latest
      // well under TIMEOUT_MS: an attempt that timed out would free the sender's connection
      // before this receiver sees it close, and count twice here.
      let quickArrived!: () => void;
      const until = new Promise<void>((resolve) => (quickArrived = resolve));
      ctx.receiver.plan('/stuck', [], { delayMs: TIMEOUT_MS / 4, until });
      const stuck = await register('/stuck');
      const quick = await register('/quick');
      try {
        await Promise.all(Array.from({ length: 24 }, () => ping(stuck.id)));
        await ctx.receiver.waitFor('/stuck', 1);
        await ping(quick.id);
        const [arrived] = await ctx.receiver.waitFor('/quick', 1);
        // The quick one went out while the slow endpoint's messages were still waiting for answers…
        expect(arrived.concurrent).toBeGreaterThan(0);
      } finally {
        quickArrived();
      }
      await ctx.receiver.waitFor('/stuck', 24);
      // …which never held more than 8 of the sender's connections at once.
      expect(ctx.receiver.peak('/stuck')).toBeGreaterThan(1);
      expect(ctx.receiver.peak('/stuck')).toBeLessThanOrEqual(8);
    });
  });

  describe('retention', () => {
    const DAY_MS = 86_400_000;

    it('forgets delivered and failed deliveries older than WEBHOOK_RETENTION_DAYS, and then their messages; keeps pending ones', async () => {
      ctx.receiver.plan('/kept-failing', [], { status: 500 });
      const ok = await register('/kept-ok');
      const failing = await register('/kept-failing');
      const delivered = (await ping(ok.id)).body;
      const failed = (await ping(failing.id)).body;
      const waiting = (await ping(ok.id)).body;
      await eventually(
        async () => [...(await log(ok.id)), ...(await log(failing.id))],
        (l) =>
          l.filter((d) => d.status === 'delivered').length === 2 &&
          l.some((d) => d.status === 'failed'),
      );
      // A retry scheduled far ahead: pending, however old.
      await ctx.t.dataSource.query(
        "UPDATE webhook_deliveries SET status = 'pending', next_attempt_ms = ? WHERE id = ?",
        [Date.now() + 365 * DAY_MS, waiting.id],
      );
      const retention = ctx.t.app.get(WebhookRetention);

      // Within the retention (default 30 days): nothing goes.
      expect(await retention.purge(Date.now() + 29 * DAY_MS)).toEqual({ deliveries: 0 });
      expect((await log(ok.id)).map((d) => d.id)).toEqual([waiting.id, delivered.id]);

      // Past it: two instances purging at once delete each row once.
      const later = Date.now() + 31 * DAY_MS;
      const [a, b] = await Promise.all([retention.purge(later), retention.purge(later)]);
      expect(a.deliveries + b.deliveries).toBe(2);
      expect(await log(ok.id)).toEqual([
        expect.objectContaining({ id: waiting.id, status: 'pending' }),
      ]);
      expect(await log(failing.id)).toEqual([]);
      // The messages go with their deliveries.
      const messages: Array<{ webhook_id: string }> = await ctx.t.dataSource.query(
        'SELECT webhook_id FROM webhook_deliveries',
      );
      expect(messages.map((m) => m.webhook_id)).toEqual([waiting.message_id]);
      expect(failed.message_id).not.toBe(waiting.message_id);
      expect(await retention.purge(later)).toEqual({ deliveries: 0 });
    });
  });
});
