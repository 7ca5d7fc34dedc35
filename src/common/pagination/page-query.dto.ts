import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../validation/decorators';
import { MAX_ID } from '../validation/input-parsing';

/** `page` and `per_page`, shared by every list (contract §5). */
export class PageQueryDto {
  /** Page of the list to return. */
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  page?: number = 1;

  /** Items per page; values above MAX_PER_PAGE are capped silently. */
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  per_page?: number = 10;
}
