import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import { appConfig } from '../config/app.config';
import { insertReturnsIds } from '../database/entity-inserts';

/**
 * Whether this service's writes may use `INSERT … RETURNING` (the event bulk
 * writes, the webhook outbox): the server is asked once (insertReturnsIds), and
 * never under DATABASE_PORTABLE_SQL, which keeps every write to plain SQL.
 */
@Injectable()
export class InsertReturning {
  private answer: Promise<boolean> | undefined;

  constructor(@Inject(appConfig.KEY) private readonly config: ConfigType<typeof appConfig>) {}

  available(manager: EntityManager): Promise<boolean> {
    if (this.config.portableSql) return Promise.resolve(false);
    // A failed question (a dropped connection) is asked again by the next write.
    this.answer ??= insertReturnsIds(manager).catch((error: unknown) => {
      this.answer = undefined;
      throw error;
    });
    return this.answer;
  }
}
