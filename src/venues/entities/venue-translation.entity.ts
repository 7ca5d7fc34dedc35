import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { PostTranslationColumns } from '../../database/post-columns';
import { Venue } from './venue.entity';

@Entity('venue_translations')
@Index('uq_venue_translations_venue_language', ['venueId', 'language'], { unique: true })
@Index('uq_venue_translations_slug', ['language', 'slug'], { unique: true })
@Index('idx_venue_translations_name', ['nameKey'])
export class VenueTranslation extends PostTranslationColumns {
  @Column({ name: 'venue_id', type: 'int' })
  venueId: number;

  @ManyToOne(() => Venue, (v) => v.translations, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'venue_id' })
  venue: Venue;

  /** The venue's name (`venue` on the wire). */
  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Lower-cased name, for the inline-venue reuse rule. */
  @Column({ name: 'name_key', type: 'varchar', length: 200 })
  nameKey: string;
}
