import { IsDefined, IsEmail, IsNotEmpty, IsOptional } from 'class-validator';
import { AllowEmptyString, IsText, ToTrimmed } from '../../common/validation/decorators';
import { ContentWriteDto } from '../../posts/dto/content.dto';

/** Writable fields of an organizer (docs/api.md §6). */
export class CreateOrganizerDto extends ContentWriteDto {
  /** The organizer's name, in the request's language. */
  @IsDefined()
  @ToTrimmed()
  @IsNotEmpty()
  @IsText(200)
  organizer: string;

  /** Contact e-mail address, or `""` to remove it. */
  @IsOptional()
  @AllowEmptyString()
  @ToTrimmed()
  @IsEmail()
  @IsText(254)
  email?: string;
}
