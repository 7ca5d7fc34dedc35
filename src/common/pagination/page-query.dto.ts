import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { Transform } from 'class-transformer';
import { ToInteger } from '../validation/decorators';
import { MAX_ID, parseInteger } from '../validation/input-parsing';

/** Any run of digits, however long, is a page size: every value above the maximum is capped. */
const ToPageSize = () =>
  Transform(({ value }) =>
    typeof value === 'string' && /^\s*\d+\s*$/.test(value)
      ? Math.min(Number(value), MAX_ID)
      : (parseInteger(value) ?? value),
  );

/** `page` and `per_page`, shared by every list (docs/api.md §5). */
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
  @ToPageSize()
  @Min(1)
  @IsInt()
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 10 })
  per_page?: number = 10;
}
