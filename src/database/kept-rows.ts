import {
  type BeforeQueryEvent,
  type EntityManager,
  type EntitySubscriberInterface,
  EventSubscriber,
  type QueryRunner,
} from 'typeorm';

/*
 * Rows a write transaction read, kept for later work of the same transaction
 * so it need not read them again: the webhook records its before-commit
 * listener renders are made of the rows the write's own ETag read loaded.
 *
 * Kept rows cannot go stale: every statement other than a SELECT on the
 * transaction's connection (a write, a savepoint, COMMIT, ROLLBACK) drops all
 * it kept, so what `get` returns was read after the transaction's last change
 * and is what a new read would return. Nothing outlives the transaction.
 */

const keptByRunner = new WeakMap<QueryRunner, Map<KeptRows<unknown>, unknown>>();

/** A read: it changes nothing (locking reads included). Anything else drops what was kept. */
const READ = /^\s*SELECT\s/i;

/** One kind of rows a transaction may keep. */
export class KeptRows<T> {
  /** Keeps `rows` on the transaction of `manager` (nothing outside a transaction). */
  keep(manager: EntityManager, rows: T): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) return;
    let kept = keptByRunner.get(runner);
    if (!kept) keptByRunner.set(runner, (kept = new Map()));
    kept.set(this, rows);
  }

  /** The rows kept on the transaction of `manager`, unless it ran anything but a SELECT since. */
  get(manager: EntityManager): T | undefined {
    const runner = manager.queryRunner;
    return runner ? (keptByRunner.get(runner)?.get(this) as T | undefined) : undefined;
  }
}

/** Drops a connection's kept rows before any statement that is not a SELECT runs on it. */
@EventSubscriber()
export class KeptRowsSubscriber implements EntitySubscriberInterface {
  beforeQuery(event: BeforeQueryEvent): void {
    if (!READ.test(event.query)) keptByRunner.delete(event.queryRunner);
  }
}

/**
 * Rows by ID: those in `kept` (rows a transaction kept, see KeptRows) from
 * there, the others loaded. IDs that name no row are left out.
 */
export async function keptOrLoaded<R>(
  ids: readonly number[],
  kept: ReadonlyMap<number, R> | undefined,
  load: (ids: number[]) => Promise<Map<number, R>>,
): Promise<Map<number, R>> {
  const unique = [...new Set(ids)];
  const missing = kept ? unique.filter((id) => !kept.has(id)) : unique;
  const loaded = missing.length > 0 ? await load(missing) : new Map<number, R>();
  if (!kept || missing.length === unique.length) return loaded;
  return new Map(
    unique.flatMap((id) => {
      const row = kept.get(id) ?? loaded.get(id);
      return row ? [[id, row] as const] : [];
    }),
  );
}
