import { Webhook } from 'standardwebhooks';
import { signatureByHand, SPEC_VECTOR } from '../e2e/helpers/standard-webhooks';

/* The Standard Webhooks test vector: the library the sender signs with, and the e2e oracle. */
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
});
