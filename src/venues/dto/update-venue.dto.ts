import { PartialType } from '@nestjs/swagger';
import { CreateVenueDto } from './create-venue.dto';

/**
 * Every field optional; those left out keep their values. Null is checked
 * like any value (so a null name is rejected), except where a field allows it.
 */
export class UpdateVenueDto extends PartialType(CreateVenueDto, { skipNullProperties: false }) {}
