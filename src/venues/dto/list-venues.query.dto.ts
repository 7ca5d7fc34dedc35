import { ContentListQueryDto } from '../../posts/dto/content.dto';

/** `GET /venues` parameters (docs/api.md §5, §5.2). */
export class ListVenuesQueryDto extends ContentListQueryDto {}
