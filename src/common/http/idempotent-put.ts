import { SetMetadata } from '@nestjs/common';

/** Route metadata read by the idempotency interceptor (kept low so controllers need not import it). */
export const IDEMPOTENT_PUT = 'idempotency:put';

/** A PUT that takes `Idempotency-Key` like every POST: the upserts by external key (docs/api.md §17). */
export const IdempotentPut = () => SetMetadata(IDEMPOTENT_PUT, true);
