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
/** Characters of an operation's header value. */
export const MAX_HEADER_VALUE = 1000;
/** The request headers an operation may carry of its own, by lower-case name. */
export const OPERATION_HEADERS = ['if-match', 'idempotency-key'] as const;
export type OperationHeader = (typeof OPERATION_HEADERS)[number];
/** The methods an operation may use: writes only. */
export const BATCH_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type BatchMethod = (typeof BATCH_METHODS)[number];

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

  /**
   * The request headers of its own: `If-Match` (docs/api.md §11) and
   * `Idempotency-Key` (§13, not in an atomic batch), names in any case; any
   * other name is refused. The batch's other headers hold for every operation.
   */
  @ApiPropertyOptional({
    type: 'object',
    properties: {
      'If-Match': {
        type: 'string',
        maxLength: MAX_HEADER_VALUE,
        example: '"q3Jq0n3H0b1mRkV3Y8tJb2x9d1A"',
      },
      'Idempotency-Key': { type: 'string', maxLength: MAX_HEADER_VALUE, example: 'import-0001' },
    },
    additionalProperties: false,
  })
  @IsOptional()
  @IsObject()
  headers?: Record<string, unknown>;
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
