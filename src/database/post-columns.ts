import { Column } from 'typeorm';
import type { PostStatus } from '../auth/policy';
import { EpochColumn, IdColumn, LongTextColumn } from './columns';

/**
 * Columns every event, venue and organizer has: identity, ownership,
 * status, publication and modification times, and the featured image.
 */
export abstract class PostColumns {
  @IdColumn()
  id: number;

  @Column({ name: 'author_id', type: 'int' })
  authorId: number;

  @Column({ type: 'varchar', length: 20 })
  status: PostStatus;

  /** Publication date (`date`/`date_utc`), unix seconds. */
  @EpochColumn({ name: 'published_at' })
  publishedAt: number;

  @EpochColumn({ name: 'modified_at' })
  modifiedAt: number;

  @Column({ name: 'image_id', type: 'int', nullable: true })
  imageId: number | null;

  @Column({ name: 'image_url', type: 'varchar', length: 2048, nullable: true })
  imageUrl: string | null;

  /** External key (docs/api.md §17): the source's name, null without a key. */
  @Column({ name: 'external_source', type: 'varchar', length: 64, nullable: true })
  externalSource: string | null;

  /** External key: the record's ID in that source, null without a key. */
  @Column({ name: 'external_id', type: 'varchar', length: 255, nullable: true })
  externalId: string | null;
}

/** Translated texts every event, venue and organizer has, one row per language. */
export abstract class PostTranslationColumns {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 2 })
  language: string;

  @Column({ type: 'varchar', length: 200 })
  slug: string;

  @LongTextColumn({ nullable: true })
  description: string | null;

  @Column({ type: 'text', nullable: true })
  excerpt: string | null;
}
