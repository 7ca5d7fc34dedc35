import { Column, Entity, Index } from 'typeorm';
import { EpochColumn, IdColumn } from '../../database/columns';
import type { FetchFailure } from '../feed-fetcher';
import type { ImportRefusal, SkippedVevent } from '../import-item';
import type { RunOutcome } from './import-source.entity';

/** What started a run: the uploaded body, the creation of a URL import, or its schedule. */
export const RUN_CAUSES = ['upload', 'created', 'schedule'] as const;
export type RunCause = (typeof RUN_CAUSES)[number];

/** What fetching the feed came to (URL imports). */
export interface FetchResult {
  outcome: 'fetched' | 'not_modified' | 'failed';
  /** Bytes of the body read. */
  bytes: number | null;
  http_status: number | null;
  error: FetchFailure | null;
  detail: string | null;
}

/** One run of an import and its report. */
@Entity('import_runs')
@Index('idx_import_runs_import', ['importId', 'id'])
export class ImportRun {
  @IdColumn()
  id: number;

  @Column({ name: 'import_id', type: 'int' })
  importId: number;

  @Column({ type: 'varchar', length: 16 })
  cause: RunCause;

  @Column({ type: 'varchar', length: 16 })
  outcome: RunOutcome;

  @EpochColumn({ name: 'started_ms' })
  startedMs: number;

  @EpochColumn({ name: 'finished_ms' })
  finishedMs: number;

  @Column({ type: 'int', default: 0 })
  created: number;

  @Column({ type: 'int', default: 0 })
  updated: number;

  @Column({ type: 'int', default: 0 })
  unchanged: number;

  @Column({ type: 'int', default: 0 })
  trashed: number;

  /** Every VEVENT skipped; `skipped` lists the first MAX_SKIPPED_LISTED of them. */
  @Column({ name: 'skipped_count', type: 'int', default: 0 })
  skippedCount: number;

  @Column({ type: 'simple-json' })
  skipped: SkippedVevent[];

  @Column({ name: 'fetch_result', type: 'simple-json', nullable: true })
  fetchResult: FetchResult | null;

  @Column({ type: 'simple-json', nullable: true })
  refusal: ImportRefusal | null;
}
