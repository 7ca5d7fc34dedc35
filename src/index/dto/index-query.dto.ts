import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { LanguageQueryDto } from '../../common/dto/language-query.dto';
import { NAMESPACE } from '../../config/app.config';

export class IndexQueryDto extends LanguageQueryDto {
  /** Namespace to describe; only calendar/events/v1 exists here. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  namespace?: string = NAMESPACE;

  /** `view` or `edit`. */
  @IsOptional()
  @IsIn(['view', 'edit'])
  context?: 'view' | 'edit' = 'view';
}
