import type { INestApplication } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ChangeTracker } from '../../../src/writes/change-tracker';

/**
 * Runs `hook` in every write transaction that recorded changes, as its last
 * step before COMMIT (after the change rows, the commit pipeline's last
 * statements): to hold a transaction there, fail it, or arm a fault for its
 * COMMIT. Returns the function that removes it.
 */
export function beforeCommit(
  app: INestApplication,
  hook: (manager: EntityManager) => Promise<void>,
): () => void {
  const tracker = app.get(ChangeTracker);
  const number = tracker.number.bind(tracker);
  const spy = jest
    .spyOn(tracker, 'number')
    .mockImplementation(async (manager: EntityManager, changes) => {
      const numbered = await number(manager, changes);
      await hook(manager);
      return numbered;
    });
  return () => spy.mockRestore();
}
