import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import { DataSource, type ReplicationMode } from 'typeorm';

// Not write state: where a request's reads go (replica or primary), set by Express middleware
// and read by the data source, which TypeORM gives no per-call parameter for.
const readTarget = new AsyncLocalStorage<ReplicationMode>();

/**
 * With read replicas (DATABASE_READ_URLS), TypeORM would send every SELECT
 * outside a transaction to a replica, so the record a write answers (read
 * back right after the commit) and an editor's next read would race the
 * replication lag. Here SELECTs go to the primary unless the request is an
 * anonymous GET or HEAD: public traffic, the bulk, is served by the replicas,
 * and whoever writes always reads what was written. Without replicas the mode
 * is ignored.
 */
export class ReadRoutingDataSource extends DataSource {
  override defaultReplicationModeForReads(): ReplicationMode {
    return readTarget.getStore() ?? 'master';
  }
}

/** Express middleware: runs anonymous reads in the replica context. */
export function routeReads(req: Request, _res: Response, next: NextFunction): void {
  const anonymousRead =
    (req.method === 'GET' || req.method === 'HEAD') && req.headers.authorization === undefined;
  if (anonymousRead) readTarget.run('slave', next);
  else next();
}
