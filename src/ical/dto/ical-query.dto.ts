import { ApiPropertyOptional, OmitType, PickType } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsDateInput } from '../../common/validation/decorators';
import { ReadEventQueryDto } from '../../events/dto/event-query.dto';
import { ListEventsQueryDto } from '../../events/dto/list-events.query.dto';

/**
 * `GET /events.ics`: every filter of `GET /events` (docs/api.md §14). Not paged:
 * `page` and `per_page` are not parameters of a feed (and ignored if sent);
 * a feed is in start order, so `orderby` is none either.
 */
export class IcalFeedQueryDto extends OmitType(ListEventsQueryDto, [
  'page',
  'per_page',
  'context',
  'orderby',
] as const) {
  @ApiPropertyOptional({
    type: String,
    description:
      'Events starting on or after this date; default 30 days before today 00:00:00 (SITE_TIMEZONE).',
  })
  @IsOptional()
  @IsDateInput()
  override start_date?: string;

  @ApiPropertyOptional({
    type: String,
    description:
      'Events ending on or before this date; default now + 24 months. A feed covers at most 10 years (else 400).',
  })
  @IsOptional()
  @IsDateInput()
  override end_date?: string;
}

/** `GET /events/{id}.ics` and `/events/by-slug/{slug}.ics`. */
export class IcalEventQueryDto extends PickType(ReadEventQueryDto, [
  'language',
  'password',
] as const) {}
