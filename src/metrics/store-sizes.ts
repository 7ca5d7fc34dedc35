import type { DataSource } from 'typeorm';

/** Counts stop here: a scrape never scans an unbounded number of rows. */
export const COUNT_CAP = 100_000;
/** A scrape's statements give up after this long (the gauges are then left out). */
const TIMEOUT_MS = 2000;

export interface StoreSizes {
  webhookBacklog: number;
  oldestPendingAgeSeconds: number;
  endpointsEnabled: number;
  endpointsDisabled: number;
  changesHead: number;
  idempotencyKeys: number;
}

/**
 * The sizes Prometheus scrapes: five small statements, each bounded by an
 * index range and COUNT_CAP (the pending messages through the index on
 * `(status, last_attempt_ms)`).
 */
export async function readStoreSizes(dataSource: DataSource): Promise<StoreSizes> {
  const one = async (sql: string): Promise<Array<Record<string, unknown>>> =>
    (await dataSource.query(sql)) as Array<Record<string, unknown>>;
  const pending = `SELECT created_ms FROM webhook_deliveries WHERE status = 'pending' LIMIT ${COUNT_CAP}`;
  const read = Promise.all([
    one(`SELECT COUNT(*) AS n, MIN(created_ms) AS oldest FROM (${pending}) p`),
    one('SELECT enabled, COUNT(*) AS n FROM webhook_endpoints GROUP BY enabled'),
    one('SELECT seq FROM change_state WHERE id = 1'),
    one(`SELECT COUNT(*) AS n FROM (SELECT 1 AS k FROM idempotency_keys LIMIT ${COUNT_CAP}) k`),
  ]);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('store sizes timed out')), TIMEOUT_MS);
  });
  try {
    const [[backlog], endpoints, [head], [keys]] = await Promise.race([read, timeout]);
    const oldest = backlog.oldest === null ? undefined : Number(backlog.oldest);
    const endpointCount = (enabled: boolean) =>
      endpoints
        .filter((row) => Number(row.enabled) === (enabled ? 1 : 0))
        .reduce((sum, row) => sum + Number(row.n), 0);
    return {
      webhookBacklog: Number(backlog.n),
      oldestPendingAgeSeconds: oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000),
      endpointsEnabled: endpointCount(true),
      endpointsDisabled: endpointCount(false),
      changesHead: Number(head?.seq ?? 0),
      idempotencyKeys: Number(keys.n),
    };
  } finally {
    clearTimeout(timer);
  }
}
