import { IsDefined, IsNotEmpty, IsOptional } from 'class-validator';
import { IsText, ToTrimmed } from '../../common/validation/decorators';

/** Writable fields of a tag (categories add `parent`). */
export class CreateTermDto {
  /** The term name, in the request's language. */
  @IsDefined()
  @ToTrimmed()
  @IsNotEmpty()
  @IsText(200)
  name: string;

  /** Description, in the request's language. */
  @IsOptional()
  @IsText(100000)
  description?: string;

  /** URL slug; generated from the name when left out. */
  @IsOptional()
  @IsText(200)
  slug?: string;
}
