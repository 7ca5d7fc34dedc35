import { Module } from '@nestjs/common';
import { ChangeTracker } from './change-tracker';
import { Writes } from './writes.service';

/**
 * The write hook below the features (docs/architecture.md): the unit of work
 * and its commit pipeline (Writes), and the change tracking it numbers
 * changes with (ChangeTracker), which listeners subscribe to.
 */
@Module({ providers: [ChangeTracker, Writes], exports: [ChangeTracker, Writes] })
export class WritesModule {}
