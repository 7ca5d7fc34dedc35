import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';

/** Operations per batch (docs/api.md §18). */
export const MAX_BATCH_OPERATIONS = 100;
/** Characters of an operation's path, query included. */
export const MAX_OPERATION_PATH = 2000;
/** The methods an operation may use: writes only. */
export const BATCH_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type BatchMethod = (typeof BATCH_METHODS)[number];

/** The request headers an operation may carry of its own (the batch's others apply to all). */
export class BatchOperationHeadersDto {
  /** As on the route alone (docs/api.md §11). */
  @ApiPropertyOptional({
    type: 'string',
    maxLength: 1000,
    example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  'If-Match'?: string;

  /** As on the route alone (docs/api.md §13); not in an atomic batch (send one with the batch). */
  @ApiPropertyOptional({ type: 'string', maxLength: 255, example: 'import-2026-11-28-0001' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  'Idempotency-Key'?: string;
}

/** One write, as it would be sent alone. */
export class BatchOperationDto {
  @ApiProperty({ enum: BATCH_METHODS })
  @IsDefined()
  @IsIn(BATCH_METHODS)
  method: BatchMethod;

  /**
   * The route under the namespace, with its query: `/events`, `/venues/12`,
   * `/events/7?force=true`, `/events/by-external-id/cms/42`. Only the
   * collections events, venues, organizers, categories and tags.
   */
  @ApiProperty({ type: 'string', maxLength: MAX_OPERATION_PATH, example: '/events' })
  @IsDefined()
  @IsString()
  @MaxLength(MAX_OPERATION_PATH)
  path: string;

  /** The JSON body the route takes (left out for a DELETE). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  body?: Record<string, unknown>;

  @ApiPropertyOptional({ type: BatchOperationHeadersDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => BatchOperationHeadersDto)
  headers?: BatchOperationHeadersDto;
}

/** `POST {api}/batch` (docs/api.md §18). */
export class BatchRequestDto {
  /** 1 to 100 operations, run in this order. */
  @ApiProperty({
    type: [BatchOperationDto],
    minItems: 1,
    maxItems: MAX_BATCH_OPERATIONS,
  })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BATCH_OPERATIONS)
  @ValidateNested({ each: true })
  @Type(() => BatchOperationDto)
  operations: BatchOperationDto[];

  /** All operations commit together or none does. Default false: each commits on its own. */
  @ApiPropertyOptional({ type: 'boolean', default: false })
  @IsOptional()
  @IsBoolean()
  atomic?: boolean;
}
