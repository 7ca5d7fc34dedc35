import { Entity, Index, PrimaryColumn } from 'typeorm';

/** An event's categories and tags. */
@Entity('event_terms')
@Index('idx_event_terms_term', ['termId', 'eventId'])
export class EventTerm {
  @PrimaryColumn({ name: 'event_id', type: 'int' })
  eventId: number;

  @PrimaryColumn({ name: 'term_id', type: 'int' })
  termId: number;
}
