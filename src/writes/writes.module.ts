import { Module } from '@nestjs/common';
import { ChangeTracker } from './change-tracker';
import { InsertReturning } from './insert-returning';
import { Writes } from './writes.service';

/**
 * The write hook below the features (docs/architecture.md): the unit of work
 * and its commit pipeline (Writes), and the change tracking it numbers
 * changes with (ChangeTracker), which listeners subscribe to; and whether
 * writes may use INSERT … RETURNING (InsertReturning).
 */
@Module({
  providers: [ChangeTracker, Writes, InsertReturning],
  exports: [ChangeTracker, Writes, InsertReturning],
})
export class WritesModule {}
