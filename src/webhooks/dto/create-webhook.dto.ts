import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';
import { ToBoolean } from '../../common/validation/decorators';
import { IsSubscription } from '../message-types';

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
  @IsSubscription(true)
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
