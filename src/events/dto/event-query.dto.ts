import { IsOptional } from 'class-validator';
import { IsText } from '../../common/validation/decorators';
import { DeleteQueryDto } from '../../posts/dto/post-query.dto';
import { ViewQueryDto } from '../../common/dto/language-query.dto';

/** `GET /events/:id` parameters. */
export class ReadEventQueryDto extends ViewQueryDto {
  /** The event's password, when it has one. */
  @IsOptional()
  @IsText(255)
  password?: string;
}

/** `DELETE /events/:id` parameters; `password` is accepted and ignored (docs/api.md §6). */
export class DeleteEventQueryDto extends DeleteQueryDto {
  /** Accepted for compatibility; deleting needs edit rights, not the password. */
  @IsOptional()
  @IsText(255)
  password?: string;
}
