import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import type { Taxonomy } from '../../auth/policy';
import { IdColumn, LongTextColumn } from '../../database/columns';
import { Term } from './term.entity';

/**
 * A term's texts in one language. Taxonomy and parent are copied here so
 * unique indexes can enforce "slug unique per taxonomy and language" and
 * "name unique per taxonomy, language and parent" even under concurrent writes.
 */
@Entity('term_translations')
@Index('uq_term_translations_term_language', ['termId', 'language'], { unique: true })
@Index('uq_term_translations_slug', ['taxonomy', 'language', 'slug'], { unique: true })
@Index('uq_term_translations_name', ['taxonomy', 'language', 'parentId', 'nameKey'], {
  unique: true,
})
export class TermTranslation {
  @IdColumn()
  id: number;

  @Column({ name: 'term_id', type: 'int' })
  termId: number;

  @ManyToOne(() => Term, (t) => t.translations, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'term_id' })
  term: Term;

  @Column({ type: 'varchar', length: 32 })
  taxonomy: Taxonomy;

  @Column({ name: 'parent_id', type: 'int', default: 0 })
  parentId: number;

  @Column({ type: 'varchar', length: 2 })
  language: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Lower-cased name: case-insensitive uniqueness and ordering on both engines. */
  @Column({ name: 'name_key', type: 'varchar', length: 200 })
  nameKey: string;

  @Column({ type: 'varchar', length: 200 })
  slug: string;

  @LongTextColumn({ nullable: true })
  description: string | null;
}
