import type { DataSource } from 'typeorm';

/** mysql2's pool keeps these queues; they are not public API, hence the guarded reads. */
interface Mysql2Pool {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

interface MysqlDriverPools {
  pool?: Mysql2Pool;
  poolCluster?: { _nodes?: Record<string, { pool?: Mysql2Pool }> };
}

export interface PoolUsage {
  inUse: number;
  idle: number;
  waiting: number;
}

/** Connections of the MySQL pools (primary and replicas summed); undefined on SQLite. */
export function poolUsage(dataSource: DataSource): PoolUsage | undefined {
  if (dataSource.options.type !== 'mysql' || !dataSource.isInitialized) return undefined;
  const driver = dataSource.driver as unknown as MysqlDriverPools;
  const pools = driver.pool
    ? [driver.pool]
    : Object.values(driver.poolCluster?._nodes ?? {}).flatMap((node) =>
        node.pool ? [node.pool] : [],
      );
  if (pools.length === 0) return undefined;
  const usage = { inUse: 0, idle: 0, waiting: 0 };
  for (const pool of pools) {
    const all = pool._allConnections?.length ?? 0;
    const free = pool._freeConnections?.length ?? 0;
    usage.inUse += all - free;
    usage.idle += free;
    usage.waiting += pool._connectionQueue?.length ?? 0;
  }
  return usage;
}
