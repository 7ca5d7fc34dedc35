import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsString, MaxLength } from 'class-validator';
import { IsOmittable, ToBoolean } from '../../common/validation/decorators';
import { IsSubscription } from '../message-types';

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
  @IsSubscription(false)
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
