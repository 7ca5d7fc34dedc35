import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An event's organizers, in the order they were given. */
@Entity('event_organizers')
@Index('idx_event_organizers_organizer', ['organizerId', 'eventId'])
export class EventOrganizer {
  @PrimaryColumn({ name: 'event_id', type: 'int' })
  eventId: number;

  @PrimaryColumn({ name: 'organizer_id', type: 'int' })
  organizerId: number;

  @Column({ type: 'int' })
  position: number;
}
