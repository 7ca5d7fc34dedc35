import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  MaxLength,
} from 'class-validator';
import {
  IsOmittable,
  MAX_LIST_ITEMS,
  ToBoolean,
  ToStringList,
} from '../../common/validation/decorators';
import { SUBSCRIBABLE_TYPES } from '../message-types';

/** Fields to change; those left out keep their values (`null` is not a value here). */
export class UpdateWebhookDto {
  /** Where messages are POSTed: an https:// URL of a public address. */
  @IsOmittable()
  @IsString()
  @MaxLength(2048)
  @ApiProperty({ required: false, maxLength: 2048 })
  url?: string;

  /** Message types to send (`event.created`, …), or `["*"]` for all. */
  @IsOmittable()
  @ToStringList()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_LIST_ITEMS)
  @IsIn(SUBSCRIBABLE_TYPES, { each: true })
  @ApiProperty({
    required: false,
    type: 'array',
    items: { type: 'string', enum: SUBSCRIBABLE_TYPES },
    minItems: 1,
    maxItems: MAX_LIST_ITEMS,
  })
  events?: string[];

  /** A note for administrators. */
  @IsOmittable()
  @IsString()
  @MaxLength(255)
  @ApiProperty({ required: false, maxLength: 255 })
  description?: string;

  /** Whether messages are sent; enabling again clears `consecutive_failures`. */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  @ApiProperty({ required: false })
  enabled?: boolean;
}
