import { Column, Entity, Index, OneToMany } from 'typeorm';
import type { Taxonomy } from '../../auth/policy';
import { EpochColumn, IdColumn } from '../../database/columns';
import { TermTranslation } from './term-translation.entity';

/** A category or tag; its names, slugs and descriptions live in TermTranslation. */
@Entity('terms')
@Index('idx_terms_taxonomy_parent', ['taxonomy', 'parentId'])
export class Term {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 32 })
  taxonomy: Taxonomy;

  /** Parent category ID; 0 for none (tags always 0). */
  @Column({ name: 'parent_id', type: 'int', default: 0 })
  parentId: number;

  /** Published events with this term (`count`); event writes keep it current. */
  @Column({ name: 'published_count', type: 'int', default: 0 })
  publishedCount: number;

  @EpochColumn({ name: 'created_at' })
  createdAt: number;

  @OneToMany(() => TermTranslation, (t) => t.term, { cascade: true })
  translations: TermTranslation[];
}
