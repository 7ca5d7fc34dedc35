import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { CreateTermDto } from '../../terms/dto/create-term.dto';
import { ToInteger } from '../../common/validation/decorators';
import { MAX_ID } from '../../common/validation/input-parsing';

export class CreateCategoryDto extends CreateTermDto {
  /** Parent category ID; 0 for none. */
  @IsOptional()
  @ToInteger()
  @IsInt()
  @Min(0)
  @Max(MAX_ID)
  parent?: number;
}
