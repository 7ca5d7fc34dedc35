import { IsIn, IsOptional } from 'class-validator';
import { LANGUAGES } from '../../i18n/language';

/** `language`, accepted by every route (docs/api.md §2). */
export class LanguageQueryDto {
  /** Language of texts and messages; else Accept-Language, else DEFAULT_LANGUAGE. */
  @IsOptional()
  @IsIn(LANGUAGES)
  language?: 'nl' | 'en';
}

/** `language` plus `context` (`view` or `edit`, which adds `translations`). */
export class ViewQueryDto extends LanguageQueryDto {
  /** `edit` adds both languages' texts for callers allowed to edit the record. */
  @IsOptional()
  @IsIn(['view', 'edit'])
  context?: 'view' | 'edit' = 'view';
}
