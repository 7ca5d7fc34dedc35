import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { LanguageQueryDto } from '../../common/dto/language-query.dto';
import { ToInteger, ToStringList } from '../../common/validation/decorators';
import { CHANGE_COLLECTIONS, type ChangeCollection } from '../../writes/change-kinds';

export const CHANGES_MAX_PER_PAGE = 1000;
export const CHANGES_DEFAULT_PER_PAGE = 100;

/** `GET {api}/changes` (contract §12). */
export class ChangesQueryDto extends LanguageQueryDto {
  /** A `next_cursor` of an earlier answer; absent: from the beginning. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  since?: string;

  /** Which kinds to follow (array or comma list); default all. */
  @IsOptional()
  @ToStringList()
  @IsIn(CHANGE_COLLECTIONS, { each: true })
  @ArrayMaxSize(CHANGE_COLLECTIONS.length)
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...CHANGE_COLLECTIONS] },
  })
  kinds?: ChangeCollection[];

  /** Changes per answer (not capped by MAX_PER_PAGE). */
  @IsOptional()
  @ToInteger()
  @Max(CHANGES_MAX_PER_PAGE)
  @Min(1)
  @IsInt()
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: CHANGES_MAX_PER_PAGE,
    default: CHANGES_DEFAULT_PER_PAGE,
  })
  per_page?: number = CHANGES_DEFAULT_PER_PAGE;
}
