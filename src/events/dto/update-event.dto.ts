import { PartialType } from '@nestjs/swagger';
import { CreateEventDto } from './create-event.dto';

/**
 * Every field optional; those left out keep their values. Null is checked
 * like any value (so a null title is rejected), except where a field allows it.
 */
export class UpdateEventDto extends PartialType(CreateEventDto, { skipNullProperties: false }) {}
