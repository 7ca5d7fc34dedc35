import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { MAX_LIST_ITEMS, ToBoolean, ToStringList } from '../../common/validation/decorators';
import { SUBSCRIBABLE_TYPES } from '../message-types';

/** A webhook endpoint to register (administrators only). */
export class CreateWebhookDto {
  /** Where messages are POSTed: an https:// URL of a public address. */
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  @ApiProperty({ maxLength: 2048, example: 'https://hooks.example.com/calendar' })
  url: string;

  /** Message types to send (`event.created`, …), or `["*"]` for all. */
  @IsDefined()
  @ToStringList()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_LIST_ITEMS)
  @IsIn(SUBSCRIBABLE_TYPES, { each: true })
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: SUBSCRIBABLE_TYPES },
    minItems: 1,
    maxItems: MAX_LIST_ITEMS,
  })
  events: string[];

  /** A note for administrators. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  @ApiProperty({ required: false, maxLength: 255, default: '' })
  description?: string;

  /** Whether messages are sent. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  @ApiProperty({ required: false, default: true })
  enabled?: boolean;
}
