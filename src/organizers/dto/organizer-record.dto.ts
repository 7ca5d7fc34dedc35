import { ContentRecordDto } from '../../posts/dto/content-record.dto';

/** An organizer (docs/api.md §6). */
export class OrganizerRecordDto extends ContentRecordDto {
  /** The organizer's name. */
  organizer: string;
  phone?: string;
  website?: string;
  email?: string;
}
