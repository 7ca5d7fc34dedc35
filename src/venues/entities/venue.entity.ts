import { Column, Entity, Index, OneToMany } from 'typeorm';
import { PostColumns } from '../../database/post-columns';
import { VenueTranslation } from './venue-translation.entity';

@Entity('venues')
@Index('idx_venues_published', ['publishedAt', 'id'])
@Index('idx_venues_status_published', ['status', 'publishedAt', 'id'])
@Index('idx_venues_author', ['authorId'])
@Index('uq_venues_external_key', ['externalSource', 'externalId'], { unique: true })
export class Venue extends PostColumns {
  @Column({ type: 'varchar', length: 255, nullable: true }) address: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) city: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) country: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) province: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) state: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) zip: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) phone: string | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) website: string | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) stateprovince: string | null;
  @Column({ name: 'geo_lat', type: 'double', nullable: true }) geoLat: number | null;
  @Column({ name: 'geo_lng', type: 'double', nullable: true }) geoLng: number | null;
  @Column({ name: 'show_map', type: 'boolean', default: true }) showMap: boolean;
  @Column({ name: 'show_map_link', type: 'boolean', default: true }) showMapLink: boolean;

  @OneToMany(() => VenueTranslation, (t) => t.venue, { cascade: true })
  translations: VenueTranslation[];
}
