import { Column, Entity, Index, OneToMany } from 'typeorm';
import { EpochColumn } from '../../database/columns';
import { PostColumns } from '../../database/post-columns';
import { EventTranslation } from './event-translation.entity';

@Entity('events')
@Index('idx_events_start', ['startAt', 'id'])
@Index('idx_events_end', ['endAt'])
/** Lists: status, then start order; covers the other filters so counts read only the index. */
@Index('idx_events_listing', ['status', 'startAt', 'id', 'endAt', 'hideFromListings', 'authorId'])
/** A feed's zones (DISTINCT timezone and series over its window) from the index alone. */
@Index('idx_events_zones', [
  'status',
  'startAt',
  'endAt',
  'hideFromListings',
  'authorId',
  'timezone',
  'seriesId',
])
@Index('idx_events_venue', ['venueId'])
@Index('idx_events_parent', ['parentId'])
@Index('idx_events_author', ['authorId'])
@Index('uq_events_occurrence', ['seriesId', 'occurrenceDate'], { unique: true })
@Index('idx_events_materialized', ['materializedUntil'])
@Index('uq_events_external_key', ['externalSource', 'externalId'], { unique: true })
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

  /**
   * 0 on create, +1 on every update or trash, and on every change of a venue
   * or organizer the event links: the iCalendar SEQUENCE.
   */
  @Column({ type: 'int', default: 0 })
  revision: number;

  /** When a venue or organizer the event links last changed (0: never): LAST-MODIFIED with `modifiedAt`. */
  @EpochColumn({ name: 'linked_modified_at', default: 0 })
  linkedModifiedAt: number;
  /** A series' RFC 5545 lines as a JSON array (docs/api.md §16); null on every other event. */
  @Column({ type: 'text', nullable: true })
  recurrence: string | null;

  /** The series' ID on the series and its occurrences; null on one-off events. */
  @Column({ name: 'series_id', type: 'int', nullable: true })
  seriesId: number | null;

  /** An occurrence's date in its series (`YYYY-MM-DD`, the RECURRENCE-ID): its key when the series changes. */
  @Column({ name: 'occurrence_date', type: 'varchar', length: 10, nullable: true })
  occurrenceDate: string | null;

  /** An occurrence edited on its own: series edits skip it. */
  @Column({ type: 'boolean', default: false })
  detached: boolean;

  /** A series' occurrences exist up to this date (`YYYY-MM-DD`); the horizon job moves it on. */
  @Column({ name: 'materialized_until', type: 'varchar', length: 10, nullable: true })
  materializedUntil: string | null;

  /** The hash of the feed item an import last wrote the event from (docs/api.md "Imports"); never returned. */
  @Column({ name: 'import_hash', type: 'varchar', length: 43, nullable: true })
  importHash: string | null;

  @OneToMany(() => EventTranslation, (t) => t.event, { cascade: true })
  translations: EventTranslation[];
}
