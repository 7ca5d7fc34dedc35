import { Column, Entity, Index } from 'typeorm';
import { EpochColumn, IdColumn } from '../../database/columns';
import type { Language } from '../../i18n/language';

/** How the import's last run ended (docs/api.md "Imports"). */
export const RUN_OUTCOMES = [
  'imported',
  'not_modified',
  'refused',
  'fetch_failed',
  'failed',
] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/**
 * An import source: an uploaded calendar (one run) or a feed URL refreshed
 * on a schedule, with the settings its events are written with.
 */
@Entity('imports')
@Index('uq_imports_feed_source', ['feedSource'], { unique: true })
@Index('idx_imports_due', ['nextRunMs'])
export class ImportSource {
  @IdColumn()
  id: number;

  /** The feed; null for an uploaded calendar. */
  @Column({ type: 'varchar', length: 2048, nullable: true })
  url: string | null;

  @Column({ name: 'refresh_seconds', type: 'int', nullable: true })
  refreshSeconds: number | null;

  @Column({ type: 'varchar', length: 64 })
  source: string;

  /** `source` for URL imports, null for uploads: unique, so no two schedules share a source. */
  @Column({ name: 'feed_source', type: 'varchar', length: 64, nullable: true })
  feedSource: string | null;

  @Column({ type: 'varchar', length: 8 })
  language: Language;

  @Column({ type: 'simple-json' })
  categories: number[];

  @Column({ type: 'varchar', length: 16 })
  status: 'publish' | 'draft';

  @Column({ name: 'trash_removed', type: 'boolean', default: true })
  trashRemoved: boolean;

  @Column({ name: 'author_id', type: 'int' })
  authorId: number;

  /** The feed's last ETag and Last-Modified, sent back as If-None-Match / If-Modified-Since. */
  @Column({ type: 'varchar', length: 1000, nullable: true })
  etag: string | null;

  @Column({ name: 'last_modified', type: 'varchar', length: 1000, nullable: true })
  lastModified: string | null;

  /** When the next scheduled run is due (ms); null for uploads. */
  @EpochColumn({ name: 'next_run_ms', nullable: true })
  nextRunMs: number | null;

  /** Set by the instance that claimed a run, cleared when it ends; a stale one is claimed again. */
  @EpochColumn({ name: 'running_since_ms', nullable: true })
  runningSinceMs: number | null;

  @EpochColumn({ name: 'last_run_ms', nullable: true })
  lastRunMs: number | null;

  @Column({ name: 'last_outcome', type: 'varchar', length: 16, nullable: true })
  lastOutcome: RunOutcome | null;

  /** The end of the last run that imported or found the feed unchanged. */
  @EpochColumn({ name: 'last_success_ms', nullable: true })
  lastSuccessMs: number | null;

  @EpochColumn({ name: 'created_at' })
  createdAt: number;
}
