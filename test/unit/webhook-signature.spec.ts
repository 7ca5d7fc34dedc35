import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signMessage } from '../../src/webhooks/webhook-transport';
import { signatureByHand, SPEC_VECTOR } from '../e2e/helpers/standard-webhooks';

/* The Standard Webhooks test vector: the sender's signature, the library and the e2e oracle. */
describe('webhook signatures', () => {
  it('the standardwebhooks library gives the specification’s test vector', () => {
    const { secret, id, timestamp, body, signature } = SPEC_VECTOR;
    expect(new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), body)).toBe(signature);
  });

  it('the hand-written oracle of the e2e tests gives it too', () => {
    const { secret, id, timestamp, body, signature } = SPEC_VECTOR;
    expect(signatureByHand(secret, id, timestamp, body)).toBe(signature);
    expect(signatureByHand(secret, id, timestamp, `${body} `)).not.toBe(signature);
  });

  it('the sender gives the specification’s test vector', () => {
    const { secret, id, timestamp, body, signature } = SPEC_VECTOR;
    expect(signMessage(secret, id, new Date(Number(timestamp) * 1000), body)).toBe(signature);
    expect(signMessage(secret, id, new Date(Number(timestamp) * 1000 + 999), body)).toBe(signature);
    expect(signMessage(secret, id, new Date(Number(timestamp) * 1000), `${body} `)).not.toBe(
      signature,
    );
  });

  it('the sender signs as the library does, for any key, id, instant and text', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.boolean(),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.oneof(fc.string({ unit: 'grapheme' }), fc.json(), fc.string({ unit: 'binary' })),
        (key, prefixed, id, millis, body) => {
          const secret = `${prefixed ? 'whsec_' : ''}${Buffer.from(key).toString('base64')}`;
          const at = new Date(millis);
          expect(signMessage(secret, id, at, body)).toBe(new Webhook(secret).sign(id, at, body));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the sender signs a secret as the service makes them, and refuses an empty key', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const at = new Date();
    expect(signMessage(secret, 'msg_1', at, '{"a":"€"}')).toBe(
      new Webhook(secret).sign('msg_1', at, '{"a":"€"}'),
    );
    expect(() => signMessage('whsec_', 'msg_1', at, '{}')).toThrow("Secret can't be empty.");
  });
});
