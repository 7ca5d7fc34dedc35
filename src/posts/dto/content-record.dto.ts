import type { Language } from '../../i18n/language';
import { RecordBaseDto } from './record-base.dto';
import { ApiTranslationsProperty } from './schema-helpers';

/** Fields every venue and organizer record has (docs/api.md §6); empty optional strings are left out. */
export class ContentRecordDto extends RecordBaseDto {
  description?: string;
  excerpt?: string;
  @ApiTranslationsProperty()
  translations?: Partial<Record<Language, Record<string, string>>>;
}
