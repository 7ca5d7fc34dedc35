import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { PostTranslationColumns } from '../../database/post-columns';
import { Event } from './event.entity';

@Entity('event_translations')
@Index('uq_event_translations_event_language', ['eventId', 'language'], { unique: true })
@Index('uq_event_translations_slug', ['language', 'slug'], { unique: true })
export class EventTranslation extends PostTranslationColumns {
  @Column({ name: 'event_id', type: 'int' })
  eventId: number;

  @ManyToOne(() => Event, (e) => e.translations, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id' })
  event: Event;

  @Column({ type: 'varchar', length: 200 })
  title: string;
}
