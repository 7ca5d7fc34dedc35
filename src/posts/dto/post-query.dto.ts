import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { ArrayMaxSize, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { POST_STATUSES, PostStatus } from '../../auth/policy';
import { LanguageQueryDto, ViewQueryDto } from '../../common/dto/language-query.dto';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { MAX_LIST_ITEMS, ToBoolean, ToStringList } from '../../common/validation/decorators';
import { EXTERNAL_SOURCE_PATTERN, IsExternalSource, MAX_EXTERNAL_SOURCE } from './external-key.dto';

/** List parameters every post list has: page, language, context and `status` (docs/api.md §4, §5). */
export class PostListQueryDto extends IntersectionType(PageQueryDto, ViewQueryDto) {
  /** One status, an array or a comma list; only `publish` for anonymous callers. */
  @IsOptional()
  @ToStringList()
  @IsIn(POST_STATUSES, { each: true })
  @ArrayMaxSize(MAX_LIST_ITEMS)
  status?: PostStatus[];

  /** Only records whose `external_id` comes from this source (docs/api.md §17). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_EXTERNAL_SOURCE)
  @IsExternalSource()
  @ApiPropertyOptional({ pattern: EXTERNAL_SOURCE_PATTERN.source, maxLength: MAX_EXTERNAL_SOURCE })
  external_source?: string;
}

/** DELETE parameters. */
export class DeleteQueryDto extends LanguageQueryDto {
  /** Delete for good instead of trashing (editors and administrators). */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  force?: boolean = false;
}
