import { Column, Entity, Index, OneToMany } from 'typeorm';
import { EpochColumn } from '../../database/columns';
import { PostColumns } from '../../database/post-columns';
import { EventTranslation } from './event-translation.entity';

@Entity('events')
@Index('idx_events_start', ['startAt', 'id'])
@Index('idx_events_end', ['endAt'])
/** Lists: status, then start order; covers the other filters so counts read only the index. */
@Index('idx_events_listing', ['status', 'startAt', 'id', 'endAt', 'hideFromListings', 'authorId'])
@Index('idx_events_venue', ['venueId'])
@Index('idx_events_parent', ['parentId'])
@Index('idx_events_author', ['authorId'])
export class Event extends PostColumns {
  /** IANA name or UTC±H[:MM]; start/end wall-clock times are in this zone. */
  @Column({ type: 'varchar', length: 64 })
  timezone: string;

  /** Wall-clock start `YYYY-MM-DD HH:MM:SS` in `timezone`: kept so a zone change re-interprets it. */
  @Column({ name: 'start_local', type: 'varchar', length: 19 })
  startLocal: string;

  @Column({ name: 'end_local', type: 'varchar', length: 19 })
  endLocal: string;

  /** Absolute start, unix seconds: what lists filter and order on. */
  @EpochColumn({ name: 'start_at' })
  startAt: number;

  @EpochColumn({ name: 'end_at' })
  endAt: number;

  @Column({ name: 'all_day', type: 'boolean', default: false }) allDay: boolean;

  /** The cost as given: a JSON array of strings. */
  @Column({ type: 'text', nullable: true })
  cost: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true }) website: string | null;
  @Column({ name: 'show_map', type: 'boolean', default: true }) showMap: boolean;
  @Column({ name: 'show_map_link', type: 'boolean', default: true }) showMapLink: boolean;
  @Column({ name: 'hide_from_listings', type: 'boolean', default: false })
  hideFromListings: boolean;
  @Column({ type: 'boolean', default: false }) sticky: boolean;
  @Column({ type: 'boolean', default: false }) featured: boolean;
  @Column({ type: 'boolean', default: false }) ticketed: boolean;

  @Column({ name: 'parent_id', type: 'int', nullable: true })
  parentId: number | null;

  /** Keyed hash of the event password; never returned. */
  @Column({ name: 'password_hash', type: 'varchar', length: 128, nullable: true })
  passwordHash: string | null;

  @Column({ name: 'venue_id', type: 'int', nullable: true })
  venueId: number | null;

  /** 0 on create, +1 on every update or trash: the iCalendar SEQUENCE. */
  @Column({ type: 'int', default: 0 })
  revision: number;

  @OneToMany(() => EventTranslation, (t) => t.event, { cascade: true })
  translations: EventTranslation[];
}
