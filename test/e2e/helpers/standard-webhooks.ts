import { createHmac } from 'node:crypto';

/*
 * The Standard Webhooks signature written out from its specification, as an
 * oracle independent of the library the service signs with: base64 of
 * HMAC-SHA256, keyed with the base64 part of `whsec_…`, over
 * `<webhook-id>.<webhook-timestamp>.<body>`, prefixed `v1,`.
 */
export function signatureByHand(
  secret: string,
  id: string,
  timestamp: string,
  body: string,
): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The test vector published with the specification (its libraries' `sign` tests). */
export const SPEC_VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
} as const;
