import {
  MAX_KEPT_BYTES,
  ReadValidatorCache,
} from '../../src/common/cache/read-validator-cache.service';
import type { AppConfig } from '../../src/config/app.config';

describe('ReadValidatorCache kept answers', () => {
  const cache = () => new ReadValidatorCache({ siteTimezone: 'UTC' } as AppConfig);
  const answer = (size: number) => ({ etag: '"t"', body: Buffer.alloc(size, 0x61) });

  it('keeps an answer for its data version only', () => {
    const validators = cache();
    validators.keepAnswer('k', answer(10), 7);
    expect(validators.keptAnswer('k', 7)).toEqual(answer(10));
    expect(validators.keptAnswer('k', 8)).toBeUndefined();
    // A newer version retired it for good.
    expect(validators.keptAnswer('k', 7)).toBeUndefined();
  });

  it('keeps answers up to MAX_KEPT_BYTES, no larger', () => {
    const validators = cache();
    validators.keepAnswer('fits', answer(MAX_KEPT_BYTES), 1);
    validators.keepAnswer('too large', answer(MAX_KEPT_BYTES + 1), 1);
    expect([
      validators.keptAnswer('fits', 1)?.body.length,
      validators.keptAnswer('too large', 1),
    ]).toEqual([MAX_KEPT_BYTES, undefined]);
  });

  it('holds at most 1,000 answers, dropping the least recently used', () => {
    const validators = cache();
    for (let i = 0; i <= 1000; i++) validators.keepAnswer(`k${i}`, answer(1), 1);
    expect([validators.keptAnswer('k0', 1), validators.keptAnswer('k1000', 1)?.etag]).toEqual([
      undefined,
      '"t"',
    ]);
  });
});
