import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IntersectionType } from '@nestjs/swagger';
import { ViewQueryDto } from '../../common/dto/language-query.dto';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { IsId, IsIdList, ToBoolean, ToIdList, ToInteger } from '../../common/validation/decorators';

export const TERM_ORDERBY = ['id', 'name', 'slug', 'count', 'description', 'include'] as const;
export type TermOrderBy = (typeof TERM_ORDERBY)[number];

/** List parameters shared by categories and tags (docs/api.md §5.3). */
export class TermListQueryDto extends IntersectionType(PageQueryDto, ViewQueryDto) {
  /** Case-insensitive substring of the name or slug. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  search?: string;

  /** Leave out these term IDs (array or comma list). */
  @IsOptional()
  @ToIdList()
  @IsIdList()
  exclude?: number[];

  /** Only these term IDs (array or comma list). */
  @IsOptional()
  @ToIdList()
  @IsIdList()
  include?: number[];

  /** Sort direction. */
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc' = 'asc';

  /** Sort key; `name` is case-insensitive, `include` keeps the order of `include`. */
  @IsOptional()
  @IsIn(TERM_ORDERBY)
  orderby?: TermOrderBy = 'name';

  /** Hide terms without published events. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  hide_empty?: boolean = true;

  /** Only terms of this event. */
  @IsOptional()
  @ToInteger()
  @IsId()
  post?: number;

  /** Alias of `post`; wins over it. */
  @IsOptional()
  @ToInteger()
  @IsId()
  event?: number;

  /** Exact slug. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  slug?: string;
}
