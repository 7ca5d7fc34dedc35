import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../validation/decorators';
import { MAX_ID } from '../validation/input-parsing';

/** `page` and `per_page`, shared by every list (contract §5). */
export class PageQueryDto {
  /** Page of the list to return. */
  // class-validator runs the lowest decorator first: the type check must come last here.
  @IsOptional()
  @ToInteger()
  @Max(MAX_ID)
  @Min(1)
  @IsInt()
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1 })
  page?: number = 1;

  /** Items per page; values above MAX_PER_PAGE are capped silently. */
  @IsOptional()
  @ToInteger()
  @Max(MAX_ID)
  @Min(1)
  @IsInt()
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 10 })
  per_page?: number = 10;
}
