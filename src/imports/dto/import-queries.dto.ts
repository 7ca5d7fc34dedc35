import { IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { LanguageQueryDto } from '../../common/dto/language-query.dto';
import { PageQueryDto } from '../../common/pagination/page-query.dto';

/** `page`, `per_page` and `language`: the imports list. */
export class ListImportsQueryDto extends IntersectionType(PageQueryDto, LanguageQueryDto) {}

export const DELETE_EVENTS = ['keep', 'trash'] as const;

/** What DELETE does with the import's events. */
export class DeleteImportQueryDto extends LanguageQueryDto {
  /** `keep` (default): the events stay, without their schedule; `trash`: every event of the import's source is trashed. */
  @IsOptional()
  @IsIn(DELETE_EVENTS)
  events?: 'keep' | 'trash' = 'keep';
}
