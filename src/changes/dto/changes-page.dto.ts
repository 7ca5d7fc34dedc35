import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { EventRecordDto } from '../../events/dto/event-record.dto';
import { OrganizerRecordDto } from '../../organizers/dto/organizer-record.dto';
import { TermRecordDto } from '../../terms/dto/term-record.dto';
import { VenueRecordDto } from '../../venues/dto/venue-record.dto';
import { CHANGE_KINDS, type ChangeKind } from '../../writes/change-kinds';

/** The records an upsert may carry. */
export const CHANGE_RECORD_MODELS = [
  EventRecordDto,
  VenueRecordDto,
  OrganizerRecordDto,
  TermRecordDto,
];

/** One change: the record's latest state for this caller, or its deletion. */
export class ChangeEntryDto {
  @ApiProperty({ enum: CHANGE_KINDS })
  kind: ChangeKind;

  @ApiProperty({ type: 'integer' })
  id: number;

  /** `upsert`: the caller may read the record (it is in `record`); `delete`: it is gone for the caller. */
  @ApiProperty({ enum: ['upsert', 'delete'] })
  type: 'upsert' | 'delete';

  /** When the change was committed (UTC). */
  changed_utc: string;

  /** On upserts: the record as its single read shows it to the caller, without `json_ld`. */
  @ApiPropertyOptional({
    anyOf: CHANGE_RECORD_MODELS.map((model) => ({ $ref: getSchemaPath(model) })),
  })
  record?: EventRecordDto | VenueRecordDto | OrganizerRecordDto | TermRecordDto;
}

/** One answer of the changes feed (contract §12). */
export class ChangesPageDto {
  /** In commit order; a record at most once, in its latest state. */
  changes: ChangeEntryDto[];

  /** Send it as `since` for the next page (while `has_more`) or the next poll. */
  next_cursor: string;

  /** More changes are waiting: ask again at once with `next_cursor`. */
  has_more: boolean;
}
