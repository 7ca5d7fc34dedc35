import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { CreateTermDto } from '../../terms/dto/create-term.dto';
import { ToInteger } from '../../common/validation/decorators';
import { MAX_ID } from '../../common/validation/input-parsing';

/** 0 or an ID; the type is checked first, so `"abc"` is reported as not an integer. */
function IsParentId(): PropertyDecorator {
  return (target, key) => {
    IsInt()(target, key);
    Min(0)(target, key);
    Max(MAX_ID)(target, key);
  };
}

export class CreateCategoryDto extends CreateTermDto {
  /** Parent category ID; 0 for none. */
  @IsOptional()
  @ToInteger()
  @IsParentId()
  parent?: number;
}
