import { PartialType } from '@nestjs/swagger';
import { CreateTermDto } from './create-term.dto';

/** Every field optional; those left out keep their values. */
export class UpdateTermDto extends PartialType(CreateTermDto) {}
