import { IsOptional } from 'class-validator';
import { TermListQueryDto } from '../../terms/dto/term-list.query.dto';
import { IsId, ToInteger } from '../../common/validation/decorators';

export class ListCategoriesQueryDto extends TermListQueryDto {
  /** Only children of this category. */
  @IsOptional()
  @ToInteger()
  @IsId()
  parent?: number;
}
