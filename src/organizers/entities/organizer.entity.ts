import { Column, Entity, Index, OneToMany } from 'typeorm';
import { PostColumns } from '../../database/post-columns';
import { OrganizerTranslation } from './organizer-translation.entity';

@Entity('organizers')
@Index('idx_organizers_published', ['publishedAt', 'id'])
@Index('idx_organizers_status_published', ['status', 'publishedAt', 'id'])
@Index('idx_organizers_author', ['authorId'])
@Index('uq_organizers_external_key', ['externalSource', 'externalId'], { unique: true })
export class Organizer extends PostColumns {
  @Column({ type: 'varchar', length: 255, nullable: true }) phone: string | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) website: string | null;
  @Column({ type: 'varchar', length: 254, nullable: true }) email: string | null;

  @OneToMany(() => OrganizerTranslation, (t) => t.organizer, { cascade: true })
  translations: OrganizerTranslation[];
}
