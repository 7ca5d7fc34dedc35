import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { PostTranslationColumns } from '../../database/post-columns';
import { Organizer } from './organizer.entity';

@Entity('organizer_translations')
@Index('uq_organizer_translations_organizer_language', ['organizerId', 'language'], {
  unique: true,
})
@Index('uq_organizer_translations_slug', ['language', 'slug'], { unique: true })
@Index('idx_organizer_translations_name', ['nameKey'])
export class OrganizerTranslation extends PostTranslationColumns {
  @Column({ name: 'organizer_id', type: 'int' })
  organizerId: number;

  @ManyToOne(() => Organizer, (o) => o.translations, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organizer_id' })
  organizer: Organizer;

  /** The organizer's name (`organizer` on the wire). */
  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Lower-cased name, for the inline-organizer reuse rule. */
  @Column({ name: 'name_key', type: 'varchar', length: 200 })
  nameKey: string;
}
