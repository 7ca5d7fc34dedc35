import { PartialType } from '@nestjs/swagger';
import { CreateOrganizerDto } from './create-organizer.dto';

/**
 * Every field optional; those left out keep their values. Null is checked
 * like any value (so a null name is rejected), except where a field allows it.
 */
export class UpdateOrganizerDto extends PartialType(CreateOrganizerDto, {
  skipNullProperties: false,
}) {}
